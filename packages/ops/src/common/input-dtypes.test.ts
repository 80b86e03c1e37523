import { InferenceError } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { gatherNdOp } from '../tensor/gather.js';
import { unsqueezeOp } from '../tensor/reshape.js';
import { inferOnValues } from './tensor-harness.js';

describe('input dtypes and ranks from a file are checked before an op infers', () => {
  it('an input whose param names a concrete dtype must carry it (pnpm fuzz onnx-run case 9369)', () => {
    const run = () =>
      inferOnValues(gatherNdOp, [
        { dtype: 'int64', shape: [-1, -1] },
        { dtype: 'float32', shape: [-2] },
      ]);
    expect(run).toThrow(InferenceError);
    expect(run).toThrow(/GatherND node: input 1 must be int64 but is float32/);
    expect(
      inferOnValues(gatherNdOp, [
        { dtype: 'float32', shape: [2, 3] },
        { dtype: 'int64', shape: [4, 1] },
      ])[0],
    ).toMatchObject({
      dtype: 'float32',
      shape: [4, 3],
    });
  });

  it('a declared shape-input length beyond the rank limit is refused, not built (case 5827)', () => {
    const run = () =>
      inferOnValues(unsqueezeOp, [
        { dtype: 'float32', shape: [3, 4, 5] },
        { dtype: 'int64', shape: [2 ** 31 - 1] },
      ]);
    expect(run).toThrow(/rank 2147483650 is refused \(the limit is 254\)/);
  });
});
