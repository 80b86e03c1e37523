import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { quantizeKernels } from './quantize.js';
import { expectClose, f32, runOp, tensorOf, values } from './test-support.fixture.js';

describe('quantization', () => {
  it('quantizes with round-half-even and saturation', () => {
    const y = runOp(quantizeKernels, 'QuantizeLinear', [f32([5], [0, 2, 3, 1000, -254]), f32([], [2]), tensorOf('uint8', [], [128])])[0];
    expect(y?.type).toBe('uint8');
    expect(values(y)).toEqual([128, 129, 130, 255, 1]);
  });
  it('quantizes per axis and blocked, and to int4', () => {
    const x = f32([1, 2, 2], [1, 2, 3, 4]);
    const y = runOp(quantizeKernels, 'QuantizeLinear', [x, f32([2], [1, 2]), tensorOf('int8', [2], [0, 0])], { axis: attr.int(1) })[0];
    expect(values(y)).toEqual([1, 2, 2, 2]);
    const b = runOp(quantizeKernels, 'QuantizeLinear', [f32([1, 4], [1, 2, 3, 4]), f32([1, 2], [1, 2]), tensorOf('int4', [1, 2], [0, 0])], {
      axis: attr.int(1),
      block_size: attr.int(2),
    })[0];
    expect(b?.type).toBe('int4');
    expect(values(b)).toEqual([1, 2, 2, 2]);
  });
  it('dequantizes integers and float8', () => {
    const y = runOp(quantizeKernels, 'DequantizeLinear', [
      tensorOf('int8', [3], [-128, 0, 127]),
      f32([], [0.5]),
      tensorOf('int8', [], [-1]),
    ])[0];
    expect(values(y)).toEqual([-63.5, 0.5, 64]);
    // float8e4m3fn 0x38 = 1.0, 0x40 = 2.0
    const f = runOp(quantizeKernels, 'DequantizeLinear', [tensorOf('float8e4m3fn', [2], [0x38, 0x40]), f32([], [3])])[0];
    expect(values(f)).toEqual([3, 6]);
  });
  it('quantizes dynamically', () => {
    const [y, scale, zp] = runOp(quantizeKernels, 'DynamicQuantizeLinear', [f32([3], [0, 2, -1])], {}, 3);
    expectClose(values(scale), [3 / 255]);
    expect(values(zp)).toEqual([85]);
    expect(values(y)).toEqual([85, 255, 0]);
  });
  it('multiplies quantized matrices', () => {
    const a = tensorOf('uint8', [1, 2], [2, 4]);
    const b = tensorOf('uint8', [2, 1], [3, 5]);
    const one = f32([], [1]);
    const y = runOp(quantizeKernels, 'QLinearMatMul', [
      a,
      one,
      tensorOf('uint8', [], [1]),
      b,
      one,
      tensorOf('uint8', [], [1]),
      f32([], [2]),
      tensorOf('uint8', [], [10]),
    ])[0];
    expect(values(y)).toEqual([10 + (1 * 2 + 3 * 4) / 2]);
  });
});
