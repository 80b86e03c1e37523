import type { AttrValue, KernelContextV1, KernelV1, TensorStorage } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { transposeInto, tensorKernels } from '@tsge/kernels-js/kernel-support';
import { blockedTranspose, coalescePermutation } from './blocked-transpose.js';
import { simdDepthSpaceKernels, simdTransposeKernel } from './simd-transpose.js';
import { type Operand, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';
import { runTile } from './simd-test-support.fixture.js';

const referenceOf = (opType: string): KernelV1 => tensorKernels.find((k) => k.opType === opType && k.name === 'reference') as KernelV1;
const transpose = simdTransposeKernel(referenceOf('Transpose'));
const [depthToSpace, spaceToDepth] = simdDepthSpaceKernels(referenceOf) as [KernelV1, KernelV1];
const ints = (value: readonly number[]): AttrValue => ({ kind: 'ints', value });
const int = (value: number): AttrValue => ({ kind: 'int', value });

/** How many tiles each parallel run of the threaded kernels got. */
const tileCounts: number[] = [];

/** The kernel with a thread pool of `threads` that runs its tiles here, in reverse order. */
const withThreads = (k: KernelV1, threads: number): KernelV1 => ({
  ...k,
  compute: (ctx: KernelContextV1) =>
    k.compute({
      ...ctx,
      parallel: {
        threads,
        run: (name, tiles) => {
          tileCounts.push(tiles.length);
          for (const t of [...tiles].reverse()) runTile(ctx.memory as NonNullable<typeof ctx.memory>, name, t);
        },
      },
    }),
});

/** Index of the first word where two float arrays differ bit for bit, or -1 (fast on large arrays). */
function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return i;
  return -1;
}

function sameAsReference(kernel: KernelV1, opType: string, input: Operand, attrs: Record<string, AttrValue>, shared = false): void {
  const expected = runKernel(referenceOf(opType), { opType, inputs: [input], attrs });
  // room for the input and the output, whatever their size
  const pages = Math.ceil((input.values.length * 8) / 65536) + 4;
  const actual = runKernel(kernel, { opType, inputs: [input], attrs, memory: wasmMemory(shared, pages) });
  expect(actual.dims).toEqual(expected.dims);
  expect(firstDifference(actual.values, expected.values)).toBe(-1);
  const threaded = runKernel(withThreads(kernel, 3), { opType, inputs: [input], attrs, memory: wasmMemory(shared, pages) });
  expect(firstDifference(threaded.values, expected.values)).toBe(-1);
}

describe('blocked Transpose', () => {
  const cases: readonly (readonly [readonly number[], readonly number[] | undefined])[] = [
    [
      [37, 45],
      [1, 0],
    ],
    [
      [1, 120, 40],
      [0, 2, 1],
    ],
    [
      [2, 9, 13, 7],
      [0, 2, 3, 1],
    ],
    [
      [2, 13, 7, 9],
      [0, 3, 1, 2],
    ],
    [
      [3, 4, 33, 65],
      [0, 1, 3, 2],
    ],
    [
      [1, 40, 3, 8, 15],
      [2, 0, 3, 1, 4],
    ],
    [
      [2, 5, 3, 4],
      [0, 2, 1, 3],
    ],
    [
      [2, 3, 4, 5, 6],
      [4, 2, 0, 3, 1],
    ],
    [
      [5, 1, 1, 7],
      [3, 1, 0, 2],
    ],
    [[6, 1, 8], undefined],
    [
      [64, 70],
      [1, 0],
    ],
    [
      [4, 5],
      [0, 1],
    ],
    [[7], [0]],
    [[], []],
    [
      [3, 0, 2],
      [2, 1, 0],
    ],
  ];
  for (const [dims, perm] of cases) {
    it(`matches the reference on [${dims}] perm ${perm ? `[${perm}]` : 'default'}`, () => {
      sameAsReference(transpose, 'Transpose', operand(dims, dims.length + 3), perm ? { perm: ints(perm) } : {});
    });
  }

  it('handles negative axes and falls back on a bad permutation', () => {
    sameAsReference(transpose, 'Transpose', operand([3, 4, 5], 2), { perm: ints([-1, 0, 1]) }, true);
    expect(() => runKernel(transpose, { opType: 'Transpose', inputs: [operand([3, 4], 1)], attrs: { perm: ints([0, 0]) } })).toThrow(
      /perm/,
    );
  });

  it('merges axes that stay neighbours and drops size-1 axes', () => {
    expect(coalescePermutation([2, 3, 4, 5], [0, 2, 3, 1])).toEqual({ dims: [2, 3, 20], perm: [0, 2, 1] });
    expect(coalescePermutation([2, 3, 4, 5], [2, 3, 0, 1])).toEqual({ dims: [6, 20], perm: [1, 0] });
    expect(coalescePermutation([1, 3, 1, 4], [3, 2, 1, 0])).toEqual({ dims: [3, 4], perm: [1, 0] });
    expect(coalescePermutation([2, 3], [0, 1])).toEqual({ dims: [6], perm: [0] });
  });

  it('moves 1-, 2- and 8-byte elements and complex pairs bit-exactly', () => {
    const dims = [3, 5, 2, 7];
    const perm = [3, 1, 0, 2];
    const count = 3 * 5 * 2 * 7;
    const arrays: TensorStorage[] = [
      Uint8Array.from({ length: count }, (_, i) => i * 7),
      Uint16Array.from({ length: count }, (_, i) => i * 331),
      BigInt64Array.from({ length: count }, (_, i) => BigInt(i) * 1234567891234n),
      Float64Array.from({ length: count }, (_, i) => i / 3),
      Float32Array.from({ length: 2 * count }, (_, i) => (i % 2 === 0 ? i : -i)),
    ];
    for (const source of arrays) {
      const make = (): TensorStorage => new (source.constructor as new (n: number) => TensorStorage)(source.length);
      const expected = make();
      const lanes = source.length / count;
      if (lanes === 1) transposeInto(source, expected, dims, perm);
      else transposeInto(source, expected, [...dims, lanes], [...perm, dims.length]);
      const actual = make();
      expect(blockedTranspose(source, actual, dims, perm)).toBe(true);
      expect(actual).toEqual(expected);
    }
    const signalingNaN = new Float32Array(new Uint32Array([0x7fa00001, 0xffc00002, 1, 2]).buffer);
    const moved = new Float32Array(4);
    blockedTranspose(signalingNaN, moved, [2, 2], [1, 0]);
    expect(Array.from(new Uint32Array(moved.buffer))).toEqual([0x7fa00001, 1, 0xffc00002, 2]);
  });

  it('keeps NaN payloads in the WebAssembly 4×4 tiles and edges', () => {
    const memory = wasmMemory(false, 4);
    const [rows, columns] = [9, 6];
    const bits = new Uint32Array(memory.buffer, 64, rows * columns);
    for (let k = 0; k < bits.length; k++) bits[k] = 0x7f800001 + k * 4099;
    const source = new Float32Array(memory.buffer, 64, rows * columns);
    const target = new Float32Array(memory.buffer, 64 + 4 * 64, rows * columns);
    expect(blockedTranspose(source, target, [rows, columns], [1, 0], { memory, parallel: undefined })).toBe(true);
    const moved = new Uint32Array(memory.buffer, target.byteOffset, rows * columns);
    for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) expect(moved[c * rows + r]).toBe(bits[r * columns + c]);
  });

  it('moves 1- and 2-byte words in device memory through the WebAssembly planes, threaded or not', () => {
    // NHWC → NCHW of an odd-sized image (large enough to split into tiles), a blocked plane with
    // edges, and a 4-D permutation
    const cases: [number[], number[]][] = [
      [
        [1, 601, 599, 3],
        [0, 3, 1, 2],
      ],
      [
        [45, 70],
        [1, 0],
      ],
      [
        [3, 5, 2, 7],
        [3, 1, 0, 2],
      ],
    ];
    for (const [dims, perm] of cases)
      for (const Words of [Uint8Array, Int16Array] as (new (
        buffer: ArrayBufferLike,
        offset?: number,
        length?: number,
      ) => Uint8Array | Int16Array)[]) {
        const count = dims.reduce((a, b) => a * b, 1);
        const memory = wasmMemory(true, 80);
        const source = new Words(memory.buffer, 64, count);
        for (let k = 0; k < count; k++) source[k] = (k * 7919) % 65536;
        const expected = new Words(new ArrayBuffer(count * 2), 0, count);
        transposeInto(source, expected, dims, perm);
        const target = new Words(memory.buffer, 64 + ((count * 2 + 63) & ~63), count);
        expect(blockedTranspose(source, target, dims, perm, { memory, parallel: undefined })).toBe(true);
        expect(target.findIndex((v, k) => v !== expected[k])).toBe(-1);
        target.fill(0);
        let split = 0;
        const tiles = {
          threads: 3,
          run: (name: string, t: readonly (readonly number[])[]) => {
            split = t.length;
            for (const x of t) runTile(memory, name, x);
          },
        };
        expect(blockedTranspose(source, target, dims, perm, { memory, parallel: tiles })).toBe(true);
        expect(target.findIndex((v, k) => v !== expected[k])).toBe(-1);
        if (count >= 1 << 20) expect(split).toBeGreaterThan(1);
      }
  });

  it('leaves strings to the general copy', () => {
    expect(blockedTranspose(['a', 'b'], ['', ''], [2], [0])).toBe(false);
  });
});

describe('blocked DepthToSpace and SpaceToDepth', () => {
  for (const mode of ['DCR', 'CRD']) {
    for (const [dims, b] of [
      [[1, 9, 13, 11], 3],
      [[2, 8, 5, 7], 2],
      [[1, 4, 1, 1], 2],
      [[1, 3, 4, 5], 1],
      [[1, 9, 100, 80], 3],
      [[2, 16, 40, 60], 2],
    ] as const) {
      it(`DepthToSpace ${mode} on [${dims}] blocksize ${b}`, () => {
        sameAsReference(depthToSpace, 'DepthToSpace', operand(dims, 3), { blocksize: int(b), mode: { kind: 'string', value: mode } });
      });
    }
  }
  for (const [dims, b] of [
    [[1, 2, 6, 9], 3],
    [[2, 3, 4, 8], 2],
  ] as const) {
    it(`SpaceToDepth on [${dims}] blocksize ${b}`, () => {
      sameAsReference(spaceToDepth, 'SpaceToDepth', operand(dims, 5), { blocksize: int(b) });
    });
  }
  it('splits large rearrangements into tiles', () => {
    tileCounts.length = 0;
    sameAsReference(depthToSpace, 'DepthToSpace', operand([1, 16, 256, 256], 3), {
      blocksize: int(2),
      mode: { kind: 'string', value: 'CRD' },
    });
    expect(tileCounts.length).toBe(1);
    expect(tileCounts[0]).toBeGreaterThan(1);
  });
  it('falls back to the reference kernels on shapes they reject', () => {
    expect(() =>
      runKernel(depthToSpace, { opType: 'DepthToSpace', inputs: [operand([1, 5, 2, 2], 1)], attrs: { blocksize: int(2) } }),
    ).toThrow(/blocksize/);
    expect(() =>
      runKernel(spaceToDepth, { opType: 'SpaceToDepth', inputs: [operand([1, 1, 3, 4], 1)], attrs: { blocksize: int(2) } }),
    ).toThrow(/blocksize/);
  });
});
