import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { convTransposeKernels } from './conv-transpose.js';
import { dropoutKernels } from './dropout.js';
import { nonMaxSuppressionKernels } from './non-max-suppression.js';
import { f32, runOp, tensorOf, values } from './test-support.fixture.js';

describe('ConvTranspose', () => {
  it('matches the ONNX 1-D example', () => {
    const y = runOp(convTransposeKernels, 'ConvTranspose', [f32([1, 1, 3], [0, 1, 2]), f32([1, 2, 3], [1, 1, 1, 1, 1, 1])])[0];
    expect(y?.dims).toEqual([1, 2, 5]);
    expect(values(y)).toEqual([0, 1, 3, 3, 2, 0, 1, 3, 3, 2]);
  });
  it('honours strides, output_padding, pads and output_shape', () => {
    const x = f32([1, 1, 2], [1, 2]);
    const w = f32([1, 1, 2], [1, 10]);
    const y = runOp(convTransposeKernels, 'ConvTranspose', [x, w], { strides: attr.ints([2]), output_padding: attr.ints([1]) })[0];
    expect(values(y)).toEqual([1, 10, 2, 20, 0]);
    const p = runOp(convTransposeKernels, 'ConvTranspose', [x, w], { strides: attr.ints([2]), pads: attr.ints([1, 0]) })[0];
    expect(values(p)).toEqual([10, 2, 20]);
    const s = runOp(convTransposeKernels, 'ConvTranspose', [x, w], { strides: attr.ints([2]), output_shape: attr.ints([5]) })[0];
    expect(s?.dims).toEqual([1, 1, 5]);
  });
});

describe('Dropout', () => {
  it('is the identity with a true mask in inference', () => {
    const [y, mask] = runOp(dropoutKernels, 'Dropout', [f32([2], [1, 2])], {}, 2);
    expect(values(y)).toEqual([1, 2]);
    expect(values(mask)).toEqual([1, 1]);
  });
  it('scales kept values in training mode', () => {
    const [y, mask] = runOp(
      dropoutKernels,
      'Dropout',
      [f32([100], new Array(100).fill(1)), f32([], [0.5]), tensorOf('bool', [], [1])],
      { seed: attr.int(3) },
      2,
    );
    const m = values(mask);
    values(y).forEach((v, i) => {
      expect(v).toBe(m[i] ? 2 : 0);
    });
    expect(m.some((v) => v === 0)).toBe(true);
  });
});

describe('NonMaxSuppression', () => {
  it('suppresses overlapping boxes', () => {
    const boxes = f32([1, 3, 4], [0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 10, 1, 11]);
    const scores = f32([1, 1, 3], [0.9, 0.75, 0.6]);
    const max = tensorOf('int64', [1], [3n]);
    const y = runOp(nonMaxSuppressionKernels, 'NonMaxSuppression', [boxes, scores, max, f32([1], [0.5]), f32([1], [0])])[0];
    expect(y?.dims).toEqual([2, 3]);
    expect(values(y)).toEqual([0, 0, 0, 0, 0, 2]);
  });
});
