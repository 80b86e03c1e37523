// Unique: distinct elements (or slices along an axis), first-occurrence indices, inverse indices
// and counts; sorted ascending by default, else in order of first occurrence.
import { type Dim, ALL_TENSOR_TYPES, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { normalizeAxis, whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

export const uniqueOp = defineOp({
  type: 'Unique',
  sinceVersion: 11,
  inputs: [param.required('X', 'T')],
  outputs: [
    param.required('Y', 'T'),
    param.optional('indices', 'int64'),
    param.optional('inverse_indices', 'int64'),
    param.optional('counts', 'int64'),
  ],
  attributes: [
    { name: 'axis', kind: 'int' },
    { name: 'sorted', kind: 'int', default: { kind: 'int', value: 1 } },
  ],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const count = ctx.newSymbol('unique');
    let shape: Dim[] | undefined = [count];
    let sliceCount: Dim = -1;
    if (ctx.attrs.has('axis')) {
      if (isUnknownRank(x.shape)) shape = undefined;
      else {
        const axis = normalizeAxis(ctx.attrs.int('axis'), x.shape.length, whereOf(ctx));
        shape = [...x.shape];
        sliceCount = x.shape[axis] as Dim;
        shape[axis] = count;
      }
    } else if (!isUnknownRank(x.shape)) {
      sliceCount = x.shape.every((d) => typeof d === 'number' && d >= 0) ? (x.shape as number[]).reduce((a, b) => a * b, 1) : -1;
    }
    ctx.setOutput(0, { dtype: x.dtype, shape: shape ?? [-2] });
    ctx.setOutput(1, { dtype: 'int64', shape: [count] });
    ctx.setOutput(2, { dtype: 'int64', shape: [sliceCount] });
    ctx.setOutput(3, { dtype: 'int64', shape: [count] });
  },
});

export const uniqueOps = [uniqueOp];
