import type { AttrValue, KernelV1 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { simdConvTransposeKernel } from './simd-conv-transpose.js';
import { type Operand, maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'ConvTranspose' && k.name === 'reference') as KernelV1;
const ints = (value: readonly number[]): AttrValue => ({ kind: 'ints', value });
const int = (value: number): AttrValue => ({ kind: 'int', value });

function compare(inputs: readonly (Operand | undefined)[], attrs: Record<string, AttrValue>, shared: boolean): void {
  const kernel = simdConvTransposeKernel(reference);
  const expected = runKernel(reference, { opType: 'ConvTranspose', inputs, attrs });
  const actual = runKernel(kernel, { opType: 'ConvTranspose', inputs, attrs, memory: wasmMemory(shared, 64), threads: shared ? 4 : 1 });
  expect(actual.dims).toEqual(expected.dims);
  // float32 GEMM against the reference's float64 one: errors against max(|y|, Cin/group·KH·KW)
  const w = inputs[1] as Operand;
  const floor = (w.dims[0] as number) * (w.dims[2] as number) * (w.dims[3] as number);
  expect(maxRelativeError(actual.values, expected.values, floor)).toBeLessThanOrEqual(1e-6);
}

describe.skipIf(!hasWasmSimd())('wasm SIMD ConvTranspose', () => {
  const cases: readonly (readonly [string, number[], number[], Record<string, AttrValue>, boolean])[] = [
    ['2×2 stride 2 (upsampling head)', [1, 8, 10, 12], [8, 8, 2, 2], { strides: ints([2, 2]) }, true],
    ['2×2 stride 2 to one channel', [1, 6, 9, 9], [6, 1, 2, 2], { strides: ints([2, 2]) }, true],
    ['2×2 stride 2, large enough for row tiles', [1, 16, 64, 64], [16, 8, 2, 2], { strides: ints([2, 2]) }, true],
    ['3×2 stride = kernel, 2 groups, batch 2, no bias', [2, 4, 11, 13], [4, 3, 3, 2], { strides: ints([3, 2]), group: int(2) }, false],
    // stride = kernel spread: odd widths leave a vector tail (W mod 4 = 1, 3), channels 1 and 24
    ['2×2 stride 2, 24 channels, odd width', [1, 24, 6, 13], [24, 24, 2, 2], { strides: ints([2, 2]) }, true],
    ['2×2 stride 2, 2 groups, batch 2, no bias', [2, 6, 5, 7], [6, 3, 2, 2], { strides: ints([2, 2]), group: int(2) }, false],
    ['2×2 stride 2, 2 groups, batch 2, to 1 channel each', [2, 4, 7, 9], [4, 1, 2, 2], { strides: ints([2, 2]), group: int(2) }, true],
    ['2×2 stride 2, from 1 channel', [1, 1, 5, 11], [1, 24, 2, 2], { strides: ints([2, 2]) }, false],
    ['3×3 stride 3, batch 2', [2, 5, 4, 7], [5, 3, 3, 3], { strides: ints([3, 3]) }, true],
    ['3×3 stride 3, 2 groups, no bias', [1, 4, 6, 5], [4, 2, 3, 3], { strides: ints([3, 3]), group: int(2) }, false],
    [
      '3×3 stride 2 pads 1 output_padding 1',
      [2, 5, 7, 6],
      [5, 4, 3, 3],
      { strides: ints([2, 2]), pads: ints([1, 1, 1, 1]), output_padding: ints([1, 1]) },
      true,
    ],
    ['3×3 stride 1 pads 1', [1, 4, 8, 8], [4, 6, 3, 3], { pads: ints([1, 1, 1, 1]) }, false],
    ['4×4 stride 2 pads 1, 2 groups', [1, 6, 5, 7], [6, 2, 4, 4], { strides: ints([2, 2]), pads: ints([1, 1, 1, 1]), group: int(2) }, true],
    [
      '3×2 dilated 2, strides 3×1, asymmetric pads',
      [1, 3, 6, 5],
      [3, 5, 3, 2],
      { strides: ints([3, 1]), dilations: ints([2, 2]), pads: ints([1, 0, 2, 1]) },
      true,
    ],
    ['depthwise 3×3 stride 2', [1, 4, 6, 6], [1, 1, 3, 3], { strides: ints([2, 2]), group: int(4) }, false],
  ];
  for (const [label, xDims, wDims, attrs, withBias] of cases) {
    for (const shared of [false, true]) {
      it(`${label} [${xDims}], ${shared ? 'shared' : 'plain'} memory`, () => {
        const groups = attrs.group?.kind === 'int' ? attrs.group.value : 1;
        const w = label.startsWith('depthwise') ? operand([4, 1, 3, 3], 2) : operand(wDims, 2);
        const bias = withBias ? operand([(w.dims[1] as number) * groups], 3) : undefined;
        compare([operand(xDims, 1), w, bias], attrs, shared);
      });
    }
  }

  it('falls back to the reference kernel for output_shape and SAME padding', () => {
    const inputs = [operand([1, 2, 4, 4], 1), operand([2, 3, 3, 3], 2)];
    compare(inputs, { strides: ints([2, 2]), output_shape: ints([8, 8]) }, false);
    compare(inputs, { strides: ints([2, 2]), auto_pad: { kind: 'string', value: 'SAME_UPPER' } }, false);
  });
});
