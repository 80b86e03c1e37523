// Shape and Size: metadata of a tensor as int64 tensors.
import { isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { MOVABLE_TYPES } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

/** Shape's [start, end) clamped to [0, rank], as in the spec. */
export function shapeRange(rank: number, start: number, end: number | undefined): [number, number] {
  const clamp = (v: number): number => Math.min(rank, Math.max(0, v < 0 ? v + rank : v));
  const s = clamp(start);
  const e = clamp(end ?? rank);
  return [s, Math.max(s, e)];
}

export const shapeOp = defineOp({
  type: 'Shape',
  sinceVersion: 25,
  inputs: [param.required('data', 'T')],
  outputs: [param.required('shape', 'int64')],
  attributes: [
    { name: 'start', kind: 'int', default: { kind: 'int', value: 0 } },
    { name: 'end', kind: 'int' },
  ],
  typeConstraints: [{ name: 'T', allowed: MOVABLE_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: 'int64', shape: [-1] });
      return;
    }
    const end = ctx.attrs.has('end') ? ctx.attrs.int('end') : undefined;
    const [s, e] = shapeRange(x.shape.length, ctx.attrs.int('start', 0), end);
    ctx.setOutput(0, { dtype: 'int64', shape: [e - s] });
  },
});

export const sizeOp = defineOp({
  type: 'Size',
  sinceVersion: 25,
  inputs: [param.required('data', 'T')],
  outputs: [param.required('size', 'int64')],
  typeConstraints: [{ name: 'T', allowed: MOVABLE_TYPES }],
  infer(ctx) {
    requireInput(ctx, 0);
    ctx.setOutput(0, { dtype: 'int64', shape: [] });
  },
});

export const shapeOps = [shapeOp, sizeOp];
