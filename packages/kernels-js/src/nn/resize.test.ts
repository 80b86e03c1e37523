import { attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { resizeKernels } from './resize.js';
import { expectClose, f32, runOp, tensorOf, values } from './test-support.fixture.js';

const sizes = (v: number[]) => createTensor('int64', [v.length], BigInt64Array.from(v.map(BigInt)));
const x22 = f32([1, 1, 2, 2], [1, 2, 3, 4]);

describe('Resize', () => {
  it('upsamples with nearest (asymmetric, floor) like the ONNX example', () => {
    const y = runOp(resizeKernels, 'Resize', [x22, undefined, f32([4], [1, 1, 2, 3])], {
      mode: attr.string('nearest'),
      coordinate_transformation_mode: attr.string('asymmetric'),
      nearest_mode: attr.string('floor'),
    })[0];
    expect(y?.dims).toEqual([1, 1, 4, 6]);
    expect(values(y).slice(0, 6)).toEqual([1, 1, 1, 2, 2, 2]);
  });
  it('upsamples linearly with half_pixel and align_corners', () => {
    const y = runOp(resizeKernels, 'Resize', [x22, undefined, f32([4], [1, 1, 2, 2])], { mode: attr.string('linear') })[0];
    expectClose(values(y).slice(0, 4), [1, 1.25, 1.75, 2]);
    const a = runOp(resizeKernels, 'Resize', [x22, undefined, undefined, sizes([1, 1, 3, 3])], {
      mode: attr.string('linear'),
      coordinate_transformation_mode: attr.string('align_corners'),
    })[0];
    expectClose(values(a), [1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4]);
  });
  it('downsamples with cubic, and keeps aspect ratio with sizes', () => {
    const x = f32(
      [1, 1, 4, 4],
      Array.from({ length: 16 }, (_, i) => i + 1),
    );
    const y = runOp(resizeKernels, 'Resize', [x, undefined, f32([4], [1, 1, 0.5, 0.5])], { mode: attr.string('cubic') })[0];
    expect(y?.dims).toEqual([1, 1, 2, 2]);
    const k = runOp(resizeKernels, 'Resize', [x, undefined, undefined, sizes([1, 1, 2, 3])], {
      keep_aspect_ratio_policy: attr.string('not_larger'),
    })[0];
    expect(k?.dims).toEqual([1, 1, 2, 2]);
  });
  it('resizes only the given axes and integer tensors', () => {
    const y = runOp(resizeKernels, 'Resize', [tensorOf('uint8', [2, 2], [10, 20, 30, 40]), undefined, f32([1], [2])], {
      axes: attr.ints([1]),
    })[0];
    expect(y?.type).toBe('uint8');
    expect(values(y)).toEqual([10, 10, 20, 20, 30, 30, 40, 40]);
  });
  it('extrapolates outside the crop box in tf_crop_and_resize', () => {
    const y = runOp(resizeKernels, 'Resize', [f32([1, 3], [1, 2, 3]), f32([4], [0, 0.5, 1, 1.5]), undefined, sizes([1, 3])], {
      mode: attr.string('linear'),
      coordinate_transformation_mode: attr.string('tf_crop_and_resize'),
      extrapolation_value: attr.float(-1),
    })[0];
    expectClose(values(y), [2, 3, -1]);
  });
});
