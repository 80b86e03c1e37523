import { attr, float16ToNumber, numberToFloat16 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { activationKernels } from './activations.js';
import { erf } from '@tsge/ops/kernel-support';
import { preluKernels } from './prelu.js';
import { softmaxKernels } from './softmax.js';
import { expectClose, f32, runOp, tensorOf, values } from './test-support.fixture.js';

const close = (actual: number[], expected: number[]) => expectClose(actual, expected);

describe('activations', () => {
  it('computes Relu on floats, ints and int64', () => {
    expect(values(runOp(activationKernels, 'Relu', [f32([3], [-1, 0, 2])])[0])).toEqual([0, 0, 2]);
    expect(values(runOp(activationKernels, 'Relu', [tensorOf('int32', [2], [-5, 5])])[0])).toEqual([0, 5]);
    expect(values(runOp(activationKernels, 'Relu', [tensorOf('int64', [2], [-5n, 5n])])[0])).toEqual([0, 5]);
  });
  it('computes parameterised activations', () => {
    const x = f32([4], [-2, -0.5, 0.5, 2]);
    close(values(runOp(activationKernels, 'LeakyRelu', [x], { alpha: attr.float(0.1) })[0]), [-0.2, -0.05, 0.5, 2]);
    close(values(runOp(activationKernels, 'Elu', [x])[0]), [Math.expm1(-2), Math.expm1(-0.5), 0.5, 2]);
    close(values(runOp(activationKernels, 'HardSigmoid', [x])[0]), [0.1, 0.4, 0.6, 0.9]);
    close(values(runOp(activationKernels, 'HardSwish', [x])[0]), [
      -2 * (1 / 6),
      -0.5 * (0.5 - 0.5 / 6),
      0.5 * (0.5 + 0.5 / 6),
      2 * (5 / 6),
    ]);
    close(values(runOp(activationKernels, 'ThresholdedRelu', [x], { alpha: attr.float(1) })[0]), [0, 0, 0, 2]);
    close(values(runOp(activationKernels, 'Softsign', [x])[0]), [-2 / 3, -1 / 3, 1 / 3, 2 / 3]);
    close(values(runOp(activationKernels, 'Swish', [x])[0]), [
      -2 / (1 + Math.exp(2)),
      -0.5 / (1 + Math.exp(0.5)),
      0.5 / (1 + Math.exp(-0.5)),
      2 / (1 + Math.exp(-2)),
    ]);
  });
  it('computes Gelu exactly and with the tanh approximation', () => {
    close(values(runOp(activationKernels, 'Gelu', [f32([3], [-1, 0, 1])])[0]), [-0.15865525, 0, 0.84134475]);
    close(values(runOp(activationKernels, 'Gelu', [f32([1], [1])], { approximate: attr.string('tanh') })[0]), [0.841192]);
    expect(erf(0.3)).toBeCloseTo(0.328626759, 8);
    expect(erf(2.5)).toBeCloseTo(0.999593048, 8);
    expect(erf(-3)).toBeCloseTo(-0.99997791, 8);
  });
  it('keeps float16 dtype', () => {
    const x = tensorOf('float16', [2], [numberToFloat16(-1), numberToFloat16(100)]);
    const y = runOp(activationKernels, 'Sigmoid', [x])[0];
    expect(y?.type).toBe('float16');
    const bits = y?.data as Uint16Array;
    expect(float16ToNumber(bits[0] as number)).toBeCloseTo(0.2689, 3);
    expect(float16ToNumber(bits[1] as number)).toBe(1);
  });
  it('handles empty tensors', () => {
    expect(runOp(activationKernels, 'Tanh', [f32([0, 3], [])])[0]?.dims).toEqual([0, 3]);
  });
  it('broadcasts PRelu slope', () => {
    const y = runOp(preluKernels, 'PRelu', [f32([2, 2], [-1, -2, 3, -4]), f32([2], [0.5, 0.25])])[0];
    expect(values(y)).toEqual([-0.5, -0.5, 3, -1]);
  });
});

describe('softmax', () => {
  it('normalises along the last axis and a negative axis', () => {
    const y = values(runOp(softmaxKernels, 'Softmax', [f32([2, 2], [0, 0, 1000, 1000])])[0]);
    close(y, [0.5, 0.5, 0.5, 0.5]);
    const l = values(runOp(softmaxKernels, 'LogSoftmax', [f32([2, 2], [1, 2, 3, 5])], { axis: attr.int(0) })[0]);
    close(l, [
      1 - (3 + Math.log1p(Math.exp(-2))),
      2 - (5 + Math.log1p(Math.exp(-3))),
      3 - (3 + Math.log1p(Math.exp(-2))),
      5 - (5 + Math.log1p(Math.exp(-3))),
    ]);
  });
  it('flattens at axis for opset < 13', () => {
    const y = values(runOp(softmaxKernels, 'Softmax', [f32([1, 2, 2], [0, 0, 0, 0])], { axis: attr.int(1) }, 1, 11)[0]);
    close(y, [0.25, 0.25, 0.25, 0.25]);
  });
});
