// OneHot: depth-wide one-hot rows inserted at `axis`; negative indices count from depth.
import { type Dim, ALL_TENSOR_TYPES, NUMERIC_TYPES, isUnknownRank, readNumber } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { normalizeAxisInclusive, whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

export const oneHotOp = defineOp({
  type: 'OneHot',
  sinceVersion: 11,
  inputs: [param.required('indices', 'T1'), param.required('depth', 'T2'), param.required('values', 'T3')],
  outputs: [param.required('output', 'T3')],
  attributes: [{ name: 'axis', kind: 'int', default: { kind: 'int', value: -1 } }],
  typeConstraints: [
    { name: 'T1', allowed: NUMERIC_TYPES },
    { name: 'T2', allowed: NUMERIC_TYPES },
    { name: 'T3', allowed: ALL_TENSOR_TYPES },
  ],
  infer(ctx) {
    const indices = requireInput(ctx, 0);
    const values = requireInput(ctx, 2);
    if (isUnknownRank(indices.shape)) {
      ctx.setOutput(0, { dtype: values.dtype, shape: [-2] });
      return;
    }
    const axis = normalizeAxisInclusive(ctx.attrs.int('axis', -1), indices.shape.length, whereOf(ctx));
    const depthT = ctx.inputValue(1);
    const depth: Dim = depthT ? Math.trunc(readNumber(depthT, 0)) : -1;
    const shape: Dim[] = [...indices.shape];
    shape.splice(axis, 0, depth);
    ctx.setOutput(0, { dtype: values.dtype, shape });
  },
});

export const oneHotOps = [oneHotOp];
