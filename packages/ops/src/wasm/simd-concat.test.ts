import type { AttrValue, HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { createAttrReader, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { tensorKernels } from '../tensor/index.js';
import { simdConcatKernel } from './simd-concat.js';
import { type Operand, operand, runKernel, wasmMemory } from './simd-test-support.js';
import { runTile } from './tiles.js';

const reference = tensorKernels.find((k) => k.opType === 'Concat' && k.name === 'reference') as KernelV1;
const kernel = simdConcatKernel(reference);
const int = (value: number): AttrValue => ({ kind: 'int', value });

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

function sameAsReference(inputs: Operand[], axis: number): void {
  const attrs = { axis: int(axis) };
  const expected = runKernel(reference, { opType: 'Concat', inputs, attrs });
  for (const options of [{}, { memory: wasmMemory(false, 256) }, { memory: wasmMemory(true, 256) }]) {
    const actual = runKernel(kernel, { opType: 'Concat', inputs, attrs, ...options });
    expect(actual.dims).toEqual(expected.dims);
    expect(actual.values).toEqual(expected.values);
  }
  const threaded = runKernel(withThreads(kernel, 3), { opType: 'Concat', inputs, attrs, memory: wasmMemory(true, 256) });
  expect(threaded.values).toEqual(expected.values);
}

describe('bulk Concat', () => {
  it('joins channels, rows and last axes like the reference', () => {
    sameAsReference([operand([1, 3, 4, 5], 1), operand([1, 2, 4, 5], 2), operand([1, 1, 4, 5], 3)], 1);
    sameAsReference([operand([2, 3, 4], 1), operand([2, 3, 1], 2)], -1);
    sameAsReference([operand([2, 3], 1), operand([5, 3], 2)], 0);
    sameAsReference([operand([2, 0, 3], 1), operand([2, 4, 3], 2)], 1);
    sameAsReference([operand([7], 1)], 0);
  });

  it('splits large concatenations into copies for the thread pool', () => {
    tileCounts.length = 0;
    sameAsReference(
      [operand([1, 64, 27, 27], 1), operand([1, 128, 27, 27], 2), operand([1, 32, 27, 27], 3), operand([1, 32, 27, 27], 4)],
      1,
    );
    expect(tileCounts.length).toBe(1);
    expect(tileCounts[0]).toBeGreaterThan(4);
    tileCounts.length = 0;
    sameAsReference([operand([2, 48, 30, 30], 1), operand([2, 40, 30, 30], 2)], 1);
    expect(tileCounts[0]).toBeGreaterThan(4);
  });

  it('copies other dtypes and reports mismatched dims through the reference', () => {
    const run = (k: KernelV1, parts: HostTensor[], axis: number): HostTensor => {
      let out: HostTensor | undefined;
      const ctx: KernelContextV1 = {
        nodeName: 'n',
        opType: 'Concat',
        attrs: createAttrReader(new Map([['axis', int(axis)]])),
        inputCount: parts.length,
        outputCount: 1,
        opsetVersion: 13,
        input: (i) => parts[i],
        tensor: (i) => parts[i],
        output: (_i, dims, dtype) => {
          out = createTensor(dtype, dims);
          return out;
        },
        setOutput: () => {},
        runSubgraph: () => [],
      };
      k.compute(ctx);
      return out as HostTensor;
    };
    const a: HostTensor = { type: 'int64', dims: [2, 2], data: BigInt64Array.from([1n, 2n, 3n, 4n]) };
    const b: HostTensor = { type: 'int64', dims: [2, 1], data: BigInt64Array.from([-5n, 9007199254740993n]) };
    expect(run(kernel, [a, b], 1)).toEqual(run(reference, [a, b], 1));
    const s: HostTensor = { type: 'string', dims: [1], data: ['x'] };
    expect(run(kernel, [s, s], 0).data).toEqual(['x', 'x']);
    expect(() => run(kernel, [a, { type: 'int64', dims: [3, 1], data: new BigInt64Array(3) }], 1)).toThrow(/do not match/);
  });
});
