import type { AttrValue, KernelV1 } from '@tsge/metadef';
import { tensorKernels } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { padConstantKernel } from './pad-constant.js';
import { type Operand, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const reference = tensorKernels.find((k) => k.opType === 'Pad' && k.name === 'reference') as KernelV1;
const kernel = padConstantKernel(reference);
const str = (value: string): AttrValue => ({ kind: 'string', value });
const ints = (values: readonly number[]): Operand => ({ dims: [values.length], values: Float32Array.from(values), int64: true });
const value = (v: number): Operand => ({ dims: [], values: Float32Array.of(v) });

describe('Pad (constant) on device memory', () => {
  it('pads the channels of NCHW and a column, as computed by hand', () => {
    // x [1, 1, 2, 2] = [[1, 2], [3, 4]]; one more channel of 9s and one column of 9s on the left
    const x: Operand = { dims: [1, 1, 2, 2], values: Float32Array.of(1, 2, 3, 4) };
    const y = runKernel(kernel, { opType: 'Pad', inputs: [x, ints([0, 0, 0, 1, 0, 1, 0, 0]), value(9)], memory: wasmMemory(false) });
    expect(y.dims).toEqual([1, 2, 2, 3]);
    expect([...y.values]).toEqual([9, 1, 2, 9, 3, 4, 9, 9, 9, 9, 9, 9]);
  });

  const cases: readonly (readonly [string, number[], readonly (Operand | undefined)[], Record<string, AttrValue>])[] = [
    ['NHWC channel pad', [1, 4, 5, 6], [ints([0, 0, 0, 0, 0, 0, 0, 6])], {}],
    ['every axis, a value', [2, 3, 4, 5], [ints([1, 0, 2, 1, 0, 3, 1, 2]), value(-1.5)], {}],
    ['axes input', [2, 3, 4], [ints([2, 1]), undefined, ints([-1])], {}],
    ['no pads', [3, 4], [ints([0, 0, 0, 0])], {}],
    ['a crop (reference)', [3, 4], [ints([0, -1, 1, 0])], {}],
    ['reflect (reference)', [3, 4], [ints([1, 2, 1, 2])], { mode: str('reflect') }],
  ];
  for (const [label, dims, rest, attrs] of cases) {
    it(`${label} on [${dims}] matches the reference kernel`, () => {
      const inputs = [operand(dims, 3), ...rest];
      const expected = runKernel(reference, { opType: 'Pad', inputs, attrs });
      for (const shared of [false, true]) {
        const actual = runKernel(kernel, { opType: 'Pad', inputs, attrs, memory: wasmMemory(shared) });
        expect(actual.dims).toEqual(expected.dims);
        expect([...actual.values]).toEqual([...expected.values]);
      }
    });
  }
});
