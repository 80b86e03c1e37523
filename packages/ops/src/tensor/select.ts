// Data-dependent selections: Compress (keep slices where a condition holds) and NonZero.
import { ALL_TENSOR_TYPES, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { normalizeAxis, whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

export const compressOp = defineOp({
  type: 'Compress',
  sinceVersion: 11,
  inputs: [param.required('input', 'T'), param.required('condition', 'bool')],
  outputs: [param.required('output', 'T')],
  attributes: [{ name: 'axis', kind: 'int' }],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const count = ctx.newSymbol('compress');
    if (!ctx.attrs.has('axis')) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [count] });
      return;
    }
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
      return;
    }
    const axis = normalizeAxis(ctx.attrs.int('axis'), x.shape.length, whereOf(ctx));
    const shape = [...x.shape];
    shape[axis] = count;
    ctx.setOutput(0, { dtype: x.dtype, shape });
  },
});

export const nonZeroOp = defineOp({
  type: 'NonZero',
  sinceVersion: 13,
  inputs: [param.required('X', 'T')],
  outputs: [param.required('Y', 'int64')],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const rank = isUnknownRank(x.shape) ? -1 : Math.max(1, x.shape.length);
    ctx.setOutput(0, { dtype: 'int64', shape: [rank, ctx.newSymbol('nonzero')] });
  },
});

export const selectOps = [compressOp, nonZeroOp];
