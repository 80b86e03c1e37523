import { type AttrValue, type KernelV1, type LinearMemory, createAttrReader } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { type PoolTask, paddedPoolLayout, poolTask } from './pool-plan.js';
import { simdPoolKernels } from './simd-pool.js';
import { bindThreadWorkspace, threadWorkspace } from './thread-workspace.js';
import { type Operand, maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const referenceOf = (opType: string): KernelV1 => {
  const k = nnKernels.find((x) => x.opType === opType && x.name === 'reference');
  if (!k) throw new Error(opType);
  return k;
};
const simd = simdPoolKernels(referenceOf);
const simdOf = (opType: string): KernelV1 => simd.find((k) => k.opType === opType) as KernelV1;
const ints = (value: readonly number[]): AttrValue => ({ kind: 'ints', value });
const int = (value: number): AttrValue => ({ kind: 'int', value });
const str = (value: string): AttrValue => ({ kind: 'string', value });
const poolTaskOf = (attrs: Record<string, AttrValue>, dims: readonly number[]): PoolTask => {
  const task = poolTask(createAttrReader(new Map(Object.entries(attrs))), dims);
  if (!task) throw new Error('not a 2-D pooling');
  return task;
};

function compare(
  opType: string,
  input: Operand,
  attrs: Record<string, AttrValue>,
  shared: boolean,
  tolerance: number,
  threads?: number,
  memory: LinearMemory = wasmMemory(shared),
): void {
  const expected = runKernel(referenceOf(opType), { opType, inputs: [input], attrs });
  const actual = runKernel(simdOf(opType), { opType, inputs: [input], attrs, memory, ...(threads ? { threads } : {}) });
  expect(actual.dims).toEqual(expected.dims);
  // averages: float32 sums against the reference's float64 ones, so errors are measured against max(|y|, 1)
  expect(maxRelativeError(actual.values, expected.values, 1)).toBeLessThanOrEqual(tolerance);
}

describe.skipIf(!hasWasmSimd())('wasm SIMD pooling kernels', () => {
  const windows: readonly (readonly [string, Record<string, AttrValue>])[] = [
    ['3×3 stride 2 pads 1', { kernel_shape: ints([3, 3]), strides: ints([2, 2]), pads: ints([1, 1, 1, 1]) }],
    ['3×3 stride 1 pads 1', { kernel_shape: ints([3, 3]), pads: ints([1, 1, 1, 1]) }],
    ['2×2 stride 2', { kernel_shape: ints([2, 2]), strides: ints([2, 2]) }],
    ['5×5 stride 1 pads 2', { kernel_shape: ints([5, 5]), pads: ints([2, 2, 2, 2]) }],
    ['3×2 strides 3×3 asymmetric pads', { kernel_shape: ints([3, 2]), strides: ints([3, 3]), pads: ints([0, 1, 2, 0]) }],
    ['3×3 stride 2 ceil mode', { kernel_shape: ints([3, 3]), strides: ints([2, 2]), ceil_mode: int(1) }],
    ['2×2 dilated 2 stride 1', { kernel_shape: ints([2, 2]), dilations: ints([2, 2]) }],
    [
      '3×3 stride 2 dilated 2 pads 2',
      { kernel_shape: ints([3, 3]), strides: ints([2, 2]), dilations: ints([2, 2]), pads: ints([2, 2, 2, 2]) },
    ],
    ['3×3 SAME_UPPER stride 2', { kernel_shape: ints([3, 3]), strides: ints([2, 2]), auto_pad: str('SAME_UPPER') }],
    ['1×1 stride 1', { kernel_shape: ints([1, 1]) }],
  ];
  const shapes = [
    [1, 3, 17, 19],
    [2, 4, 8, 8],
    [1, 2, 33, 40],
    [1, 1, 3, 3],
  ];
  for (const [label, attrs] of windows) {
    for (const dims of shapes) {
      for (const shared of [false, true]) {
        const memoryLabel = shared ? 'shared' : 'plain';
        it(`MaxPool ${label} on [${dims}], ${memoryLabel} memory`, () => {
          compare('MaxPool', operand(dims, dims[2] as number), attrs, shared, 0);
        });
        for (const includePad of [0, 1]) {
          it(`AveragePool ${label} count_include_pad=${includePad} on [${dims}], ${memoryLabel} memory`, () => {
            compare('AveragePool', operand(dims, dims[3] as number), { ...attrs, count_include_pad: int(includePad) }, shared, 1e-6);
          });
        }
      }
    }
  }

  it('splits large pooling into plane tiles (run out of order) with the same results', () => {
    const attrs = { kernel_shape: ints([3, 3]), pads: ints([1, 1, 1, 1]) };
    compare('MaxPool', operand([2, 48, 64, 64], 5), attrs, true, 0, 4);
    compare('AveragePool', operand([2, 48, 64, 64], 6), attrs, true, 1e-6, 4);
  });

  it('pads planes larger than the thread workspace in bands of output rows', () => {
    // a 4 KiB workspace holds 14 padded rows of 61 columns: bands of 12 (stride 1) or 6 (stride 2) output rows
    const memory = wasmMemory(false);
    const workspace = threadWorkspace(memory);
    if (!workspace) throw new Error('no workspace');
    bindThreadWorkspace(memory, workspace.offset, 4096);
    for (const strides of [
      [1, 1],
      [2, 2],
    ]) {
      for (const k of [2, 3, 4]) {
        const attrs = { kernel_shape: ints([k, k]), strides: ints(strides), pads: ints([1, 1, k - 1, k - 1]) };
        expect(paddedPoolLayout(poolTaskOf(attrs, [1, 3, 64, 61]), 'max', 4096)?.bandOut).toBeLessThan(32);
        compare('MaxPool', operand([1, 3, 64, 61], 9), attrs, false, 0, undefined, memory);
        for (const includePad of [0, 1])
          compare(
            'AveragePool',
            operand([1, 3, 64, 61], 10),
            { ...attrs, count_include_pad: int(includePad) },
            false,
            1e-6,
            undefined,
            memory,
          );
      }
    }
  });

  it('seeded random windows, pads, strides and dilations with NaN and −0 inputs match the reference (MaxPool exactly)', () => {
    let seed = 2027;
    const next = (): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed;
    };
    const pick = (lo: number, hi: number): number => lo + (next() % (hi - lo + 1));
    for (let iter = 0; iter < 300; iter++) {
      const [KH, KW] = [pick(1, 5), pick(1, 5)];
      const attrs: Record<string, AttrValue> = {
        kernel_shape: ints([KH, KW]),
        strides: ints([pick(1, 3), pick(1, 2)]),
        dilations: ints([pick(1, 4) === 4 ? 2 : 1, pick(1, 4) === 4 ? 2 : 1]),
        pads: ints([pick(0, KH - 1), pick(0, KW - 1), pick(0, KH - 1), pick(0, KW - 1)]),
        ceil_mode: int(pick(0, 2) === 2 ? 1 : 0),
      };
      const dims = [1, pick(1, 3), pick(1, 48), pick(1, 40)];
      const values = Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => {
        const r = next() % 40;
        return r === 0 ? Number.NaN : r === 1 ? -0 : Math.sin(next());
      });
      // a small workspace now and then: the padded kernels then run taller planes in bands of output rows
      const memory = wasmMemory(false);
      const workspace = threadWorkspace(memory);
      if (workspace && pick(0, 2) === 0) bindThreadWorkspace(memory, workspace.offset, 4096);
      try {
        runKernel(referenceOf('MaxPool'), { opType: 'MaxPool', inputs: [{ dims, values }], attrs });
      } catch {
        continue; // attributes the reference refuses (a window larger than the padded input)
      }
      compare('MaxPool', { dims, values }, attrs, false, 0, undefined, memory);
      compare('AveragePool', { dims, values }, { ...attrs, count_include_pad: int(pick(0, 1)) }, false, 1e-6, undefined, memory);
    }
  });

  it('a window over the whole unpadded plane (global pooling written as MaxPool/AveragePool) matches the reference', () => {
    for (const dims of [
      [2, 16, 20, 24],
      [1, 3, 1, 5],
    ]) {
      const [H, W] = dims.slice(2) as [number, number];
      const windows: Record<string, AttrValue>[] = [
        { kernel_shape: ints([H, W]) },
        { kernel_shape: ints([H, W]), strides: ints([H, W]), count_include_pad: int(1) },
      ];
      for (const attrs of windows) {
        compare('MaxPool', operand(dims, 7), attrs, true, 0);
        compare('AveragePool', operand(dims, 8), attrs, false, 1e-6);
      }
    }
  });

  it('MaxPool keeps NaN where the reference does and gives -Infinity to windows past the input', () => {
    const values = Float32Array.from({ length: 64 }, (_, i) => (i % 13 === 0 ? Number.NaN : Math.sin(i)));
    const input: Operand = { dims: [1, 1, 8, 8], values };
    for (const strides of [
      [1, 1],
      [2, 2],
    ]) {
      compare('MaxPool', input, { kernel_shape: ints([3, 3]), strides: ints(strides), pads: ints([1, 1, 1, 1]) }, false, 0);
    }
    compare('MaxPool', input, { kernel_shape: ints([2, 2]), strides: ints([3, 3]), pads: ints([0, 0, 4, 4]) }, false, 0);
  });

  for (const dims of [
    [1, 8, 7, 7],
    [2, 3, 40, 41],
    [1, 5, 3],
    [1, 2, 2, 3, 4],
  ]) {
    for (const shared of [false, true]) {
      it(`GlobalMaxPool and GlobalAveragePool on [${dims}], ${shared ? 'shared' : 'plain'} memory`, () => {
        compare('GlobalMaxPool', operand(dims, 5), {}, shared, 0);
        compare('GlobalAveragePool', operand(dims, 6), {}, shared, 1e-6);
      });
    }
  }

  it('falls back to the reference kernel for the Indices output and host memory', () => {
    const input = operand([1, 1, 4, 4], 3);
    const attrs = { kernel_shape: ints([2, 2]), strides: ints([2, 2]) };
    const expected = runKernel(referenceOf('MaxPool'), { opType: 'MaxPool', inputs: [input], attrs });
    const host = runKernel(simdOf('MaxPool'), { opType: 'MaxPool', inputs: [input], attrs });
    expect([...host.values]).toEqual([...expected.values]);
  });
});
