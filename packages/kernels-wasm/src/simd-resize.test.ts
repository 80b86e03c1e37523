import type { AttrValue, KernelV1 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { simdResizeKernel } from './simd-resize.js';
import { type Operand, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'Resize' && k.name === 'reference') as KernelV1;
const kernel = simdResizeKernel(reference);
const str = (value: string): AttrValue => ({ kind: 'string', value });
const ints = (value: readonly number[]): AttrValue => ({ kind: 'ints', value });
const empty: Operand = { dims: [0], values: new Float32Array(0) };
const scales = (values: readonly number[]): Operand => ({ dims: [values.length], values: Float32Array.from(values) });

function compare(inputs: readonly (Operand | undefined)[], attrs: Record<string, AttrValue>, shared: boolean): void {
  const expected = runKernel(reference, { opType: 'Resize', inputs, attrs });
  const actual = runKernel(kernel, { opType: 'Resize', inputs, attrs, memory: wasmMemory(shared) });
  expect(actual.dims).toEqual(expected.dims);
  expect([...actual.values]).toEqual([...expected.values]);
}

describe.skipIf(!hasWasmSimd())('wasm SIMD Resize (nearest)', () => {
  const cases: readonly (readonly [string, number[], readonly (Operand | undefined)[], Record<string, AttrValue>])[] = [
    [
      '×2 asymmetric floor',
      [1, 3, 5, 9],
      [empty, scales([1, 1, 2, 2])],
      { coordinate_transformation_mode: str('asymmetric'), nearest_mode: str('floor') },
    ],
    ['×2 half_pixel round_prefer_floor', [2, 2, 4, 8], [empty, scales([1, 1, 2, 2])], {}],
    ['×3 by 1.5 align_corners', [1, 2, 4, 6], [empty, scales([1, 1, 3, 1.5])], { coordinate_transformation_mode: str('align_corners') }],
    ['down 0.5 round_prefer_ceil', [1, 2, 8, 9], [empty, scales([1, 1, 0.5, 0.5])], { nearest_mode: str('round_prefer_ceil') }],
    [
      'sizes 7×13 pytorch_half_pixel ceil',
      [1, 4, 5, 6],
      [empty, empty, { dims: [4], values: Float32Array.of(1, 4, 7, 13) }],
      { coordinate_transformation_mode: str('pytorch_half_pixel'), nearest_mode: str('ceil') },
    ],
    ['axes [2,3] ×2', [1, 2, 3, 7], [empty, scales([2, 2])], { axes: ints([2, 3]) }],
  ];
  for (const [label, dims, rest, attrs] of cases) {
    for (const shared of [false, true]) {
      it(`${label} on [${dims}], ${shared ? 'shared' : 'plain'} memory`, () =>
        compare([operand(dims, 3), ...rest], { mode: str('nearest'), ...attrs }, shared));
    }
  }
  it('falls back to the reference kernel for linear mode and channel scaling', () => {
    compare([operand([1, 2, 4, 4], 1), empty, scales([1, 1, 2, 2])], { mode: str('linear') }, false);
    compare([operand([1, 2, 4, 4], 1), empty, scales([1, 2, 2, 2])], { mode: str('nearest') }, false);
  });
});
