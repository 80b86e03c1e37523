// Gather, GatherElements and GatherND: index-driven reads (negative indices count from the end).
import { type Dim, ALL_TENSOR_TYPES, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { normalizeAxis, whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

const TYPES = [
  { name: 'T', allowed: ALL_TENSOR_TYPES },
  { name: 'Tind', allowed: ['int32', 'int64'] as const },
];

export const gatherOp = defineOp({
  type: 'Gather',
  sinceVersion: 13,
  inputs: [param.required('data', 'T'), param.required('indices', 'Tind')],
  outputs: [param.required('output', 'T')],
  attributes: [{ name: 'axis', kind: 'int', default: { kind: 'int', value: 0 } }],
  typeConstraints: TYPES,
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const indices = requireInput(ctx, 1);
    if (isUnknownRank(x.shape) || isUnknownRank(indices.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
      return;
    }
    const axis = normalizeAxis(ctx.attrs.int('axis', 0), x.shape.length, whereOf(ctx));
    ctx.setOutput(0, { dtype: x.dtype, shape: [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)] });
  },
});

export const gatherElementsOp = defineOp({
  type: 'GatherElements',
  sinceVersion: 13,
  inputs: [param.required('data', 'T'), param.required('indices', 'Tind')],
  outputs: [param.required('output', 'T')],
  attributes: [{ name: 'axis', kind: 'int', default: { kind: 'int', value: 0 } }],
  typeConstraints: TYPES,
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const indices = requireInput(ctx, 1);
    if (!isUnknownRank(x.shape) && !isUnknownRank(indices.shape) && x.shape.length !== indices.shape.length)
      throw new InferenceError(`${whereOf(ctx)}: data and indices ranks differ`);
    ctx.setOutput(0, { dtype: x.dtype, shape: indices.shape });
  },
});

export const gatherNdOp = defineOp({
  type: 'GatherND',
  sinceVersion: 13,
  inputs: [param.required('data', 'T'), param.required('indices', 'int64')],
  outputs: [param.required('output', 'T')],
  attributes: [{ name: 'batch_dims', kind: 'int', default: { kind: 'int', value: 0 } }],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const indices = requireInput(ctx, 1);
    const k = indices.shape[indices.shape.length - 1];
    if (isUnknownRank(x.shape) || isUnknownRank(indices.shape) || typeof k !== 'number' || k < 0) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
      return;
    }
    const b = ctx.attrs.int('batch_dims', 0);
    if (k + b > x.shape.length) throw new InferenceError(`${whereOf(ctx)}: index tuples of ${k} exceed data rank ${x.shape.length}`);
    ctx.setOutput(0, { dtype: x.dtype, shape: [...indices.shape.slice(0, -1), ...x.shape.slice(b + k)] as Dim[] });
  },
});

export const gatherOps = [gatherOp, gatherElementsOp, gatherNdOp];
