import { attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { centerCropPadKernels } from './center-crop-pad.js';
import { col2imKernels } from './col2im.js';
import { deformConvKernels } from './deform-conv.js';
import { gridSampleKernels } from './grid-sample.js';
import { maxUnpoolKernels } from './max-unpool.js';
import { roiPoolKernels } from './roi-pool.js';
import { expectClose, f32, runOp, tensorOf, values } from './test-support.fixture.js';

const int64 = (dims: number[], v: number[]) => createTensor('int64', dims, BigInt64Array.from(v.map(BigInt)));

describe('GridSample and AffineGrid', () => {
  const x = f32([1, 1, 2, 2], [1, 2, 3, 4]);
  it('samples bilinearly with align_corners and zero padding', () => {
    const grid = f32([1, 1, 3, 2], [-1, -1, 0, 0, 1, 1]);
    const y = runOp(gridSampleKernels, 'GridSample', [x, grid], { align_corners: attr.int(1) })[0];
    expectClose(values(y), [1, 2.5, 4]);
    const z = runOp(gridSampleKernels, 'GridSample', [x, f32([1, 1, 1, 2], [-1, -1])])[0];
    expectClose(values(z), [0.25]);
  });
  it('samples nearest with border and reflection padding', () => {
    const grid = f32([1, 1, 2, 2], [-3, 0.9, 3, -1]);
    const border = runOp(gridSampleKernels, 'GridSample', [x, grid], {
      mode: attr.string('nearest'),
      padding_mode: attr.string('border'),
    })[0];
    expect(values(border)).toEqual([3, 2]);
    const reflect = runOp(gridSampleKernels, 'GridSample', [x, grid], {
      mode: attr.string('nearest'),
      padding_mode: attr.string('reflection'),
      align_corners: attr.int(1),
    })[0];
    expect(values(reflect)).toEqual([4, 1]);
  });
  it('builds an identity affine grid', () => {
    const theta = f32([1, 2, 3], [1, 0, 0, 0, 1, 0]);
    const grid = runOp(gridSampleKernels, 'AffineGrid', [theta, int64([4], [1, 1, 2, 2])], { align_corners: attr.int(1) })[0];
    expect(grid?.dims).toEqual([1, 2, 2, 2]);
    expect(values(grid)).toEqual([-1, -1, 1, -1, -1, 1, 1, 1]);
  });
});

describe('Col2Im and CenterCropPad', () => {
  it('sums overlapping blocks back into the image', () => {
    // 1x3 image, 1x2 blocks, stride 1: two blocks [a b], [b c]
    const y = runOp(col2imKernels, 'Col2Im', [f32([1, 2, 2], [1, 2, 10, 20]), int64([2], [1, 3]), int64([2], [1, 2])])[0];
    expect(y?.dims).toEqual([1, 1, 1, 3]);
    expect(values(y)).toEqual([1, 12, 20]);
  });
  it('crops and pads around the centre, for any dtype', () => {
    const x = tensorOf('int32', [2, 3], [1, 2, 3, 4, 5, 6]);
    const y = runOp(centerCropPadKernels, 'CenterCropPad', [x, int64([2], [4, 1])])[0];
    expect(y?.dims).toEqual([4, 1]);
    expect(values(y)).toEqual([0, 2, 5, 0]);
    const s = createTensor('string', [3], ['a', 'b', 'c']);
    const z = runOp(centerCropPadKernels, 'CenterCropPad', [s, int64([1], [1])])[0];
    expect(z?.data).toEqual(['b']);
  });
});

describe('MaxUnpool, RoiAlign, MaxRoiPool and DeformConv', () => {
  it('unpools to the recorded indices', () => {
    const y = runOp(maxUnpoolKernels, 'MaxUnpool', [f32([1, 1, 1, 2], [5, 6]), int64([1, 1, 1, 2], [1, 2])], {
      kernel_shape: attr.ints([2, 2]),
      strides: attr.ints([2, 2]),
    })[0];
    expect(y?.dims).toEqual([1, 1, 2, 4]);
    expect(values(y)).toEqual([0, 5, 6, 0, 0, 0, 0, 0]);
  });
  it('aligns an ROI by bilinear averaging', () => {
    const x = f32([1, 1, 2, 2], [1, 2, 3, 4]);
    const y = runOp(roiPoolKernels, 'RoiAlign', [x, f32([1, 4], [0, 0, 2, 2]), int64([1], [0])], { sampling_ratio: attr.int(1) })[0];
    expectClose(values(y), [2.5]);
    const m = runOp(roiPoolKernels, 'MaxRoiPool', [x, f32([1, 5], [0, 0, 0, 1, 1])], { pooled_shape: attr.ints([1, 1]) })[0];
    expect(values(m)).toEqual([4]);
  });
  it('equals a plain convolution when offsets are zero, and shifts with offsets', () => {
    const x = f32([1, 1, 2, 2], [1, 2, 3, 4]);
    const w = f32([1, 1, 1, 1], [2]);
    const zero = f32([1, 2, 2, 2], new Array(8).fill(0));
    expect(values(runOp(deformConvKernels, 'DeformConv', [x, w, zero])[0])).toEqual([2, 4, 6, 8]);
    // shift every tap half a pixel right: bilinear between neighbours, zero past the edge
    const half = f32([1, 2, 2, 2], [0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5]);
    expectClose(values(runOp(deformConvKernels, 'DeformConv', [x, w, half])[0]), [3, 2, 7, 4]);
  });
});
