// Expand (bidirectional broadcast to a shape) and Tile (repeat along each axis).
import { type Dim, ALL_TENSOR_TYPES, InferenceError, broadcastShapes, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { knownInts, unknownDims, whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

export const expandOp = defineOp({
  type: 'Expand',
  sinceVersion: 13,
  inputs: [param.required('input', 'T'), param.required('shape', 'int64')],
  outputs: [param.required('output', 'T')],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const target = knownInts(ctx, 1);
    if (!target) {
      const n = requireInput(ctx, 1).shape[0];
      const rank = !isUnknownRank(x.shape) && typeof n === 'number' && n >= 0 ? Math.max(n, x.shape.length) : undefined;
      ctx.setOutput(0, { dtype: x.dtype, shape: rank === undefined ? [-2] : unknownDims(rank) });
      return;
    }
    const shape = broadcastShapes(x.shape, target);
    if (!shape) throw new InferenceError(`${whereOf(ctx)}: cannot expand to [${target.join(',')}]`);
    ctx.setOutput(0, { dtype: x.dtype, shape });
  },
});

export const tileOp = defineOp({
  type: 'Tile',
  sinceVersion: 13,
  inputs: [param.required('input', 'T'), param.required('repeats', 'int64')],
  outputs: [param.required('output', 'T')],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
      return;
    }
    const repeats = knownInts(ctx, 1);
    if (repeats && repeats.length !== x.shape.length)
      throw new InferenceError(`${whereOf(ctx)}: repeats has ${repeats.length} entries for rank ${x.shape.length}`);
    const shape = x.shape.map((d, i): Dim => {
      const r = repeats?.[i];
      return r !== undefined && typeof d === 'number' && d >= 0 ? d * r : -1;
    });
    ctx.setOutput(0, { dtype: x.dtype, shape });
  },
});

export const expandTileOps = [expandOp, tileOp];
