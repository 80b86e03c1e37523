import { type Value, attr } from '@tsge/metadef';
import type { ConverterTable, OpConverter } from './registry.js';

const reduce =
  (type: string, boolean = false): OpConverter =>
  (ctx) => {
    const x = ctx.input(0);
    const keep = ctx.attrs.bool('keep_dims', false);
    const axes = ctx.toInt64List(ctx.input(1));
    const count = ctx.constantOf(1)?.data.length;
    const rank = ctx.rankOf(x);
    // All/Any: reduce 0/1 integers, then back to bool (ONNX reductions take no bool)
    const input = boolean ? ctx.cast(x, 'int32') : x;
    let y = ctx.op1(type, [input, axes], { keepdims: attr.int(keep ? 1 : 0) });
    if (boolean) y = ctx.cast(y, 'bool');
    const outRank = rank === undefined ? undefined : keep ? rank : count !== undefined ? rank - count : undefined;
    return [ctx.note(y, { ...(outRank !== undefined ? { rank: outRank } : {}), ...(ctx.dtypeOf(x) ? { dtype: ctx.dtypeOf(x) } : {}) })];
  };

function argReduce(type: 'ArgMax' | 'ArgMin'): OpConverter {
  return (ctx) => {
    const values = ctx.constNumbers(1, 'dimension');
    if (values.length !== 1) throw ctx.problem('dimension must be a scalar');
    const y = ctx.op1(type, [ctx.input(0)], { axis: attr.int(values[0] as number), keepdims: attr.int(0) });
    const out = ctx.attrs.dtype('output_type', 'int64');
    return [ctx.cast(ctx.note(y, { dtype: 'int64' }), out)];
  };
}

/** NonMaxSuppressionV3/4/5 on [N, 4] boxes and [N] scores: ONNX NMS on one batch and one class. */
function nonMaxSuppression(version: 3 | 4 | 5): OpConverter {
  return (ctx) => {
    if (version === 5) {
      const sigma = ctx.constantOf(5);
      if (!sigma || Number(sigma.data[0]) !== 0) throw ctx.problem('soft-NMS (soft_nms_sigma other than 0) is not supported');
    }
    const boxes = ctx.op1('Unsqueeze', [ctx.input(0), ctx.int64s([0])]);
    const scores = ctx.op1('Unsqueeze', [ctx.input(1), ctx.int64s([0, 1])]);
    const max = ctx.toInt64List(ctx.input(2));
    const iou = ctx.op1('Reshape', [ctx.cast(ctx.input(3), 'float32'), ctx.int64s([1])]);
    const scoreThreshold =
      ctx.inputCount > 4 ? ctx.op1('Reshape', [ctx.cast(ctx.input(4), 'float32'), ctx.int64s([1])]) : ctx.constant(floatVector(-3.4e38));
    const selected = ctx.op1('NonMaxSuppression', [boxes, scores, max, iou, scoreThreshold], { center_point_box: attr.int(0) });
    const indices = ctx.op1('Gather', [selected, ctx.int64s([2], [])], { axis: attr.int(1) });
    const count = ctx.op1('Size', [indices]);
    const pad = version === 4 && ctx.attrs.bool('pad_to_max_output_size', false);
    const padTo = (v: Value, type: 'int32' | 'float32'): Value => {
      if (!pad && !(version === 5 && ctx.attrs.bool('pad_to_max_output_size', false))) return v;
      const missing = ctx.op1('Sub', [max, ctx.op1('Reshape', [count, ctx.int64s([1])])]);
      return ctx.op1('Pad', [v, ctx.op1('Concat', [ctx.int64s([0]), missing], { axis: attr.int(0) }), ctx.scalar(0, type)]);
    };
    const selectedIndices = ctx.note(padTo(ctx.cast(indices, 'int32'), 'int32'), { rank: 1, dtype: 'int32' });
    const valid = ctx.note(ctx.cast(count, 'int32'), { rank: 0, dtype: 'int32' });
    if (version === 3) return [selectedIndices];
    if (version === 4) return [selectedIndices, valid];
    const selectedScores = padTo(ctx.op1('Gather', [ctx.input(1), indices], { axis: attr.int(0) }), 'float32');
    return [selectedIndices, selectedScores, valid];
  };
}

function floatVector(value: number) {
  return { type: 'float32' as const, dims: [1], data: Float32Array.of(value) };
}

export const reduceConverters: ConverterTable = {
  Sum: reduce('ReduceSum'),
  Mean: reduce('ReduceMean'),
  Max: reduce('ReduceMax'),
  Min: reduce('ReduceMin'),
  Prod: reduce('ReduceProd'),
  All: reduce('ReduceMin', true),
  Any: reduce('ReduceMax', true),
  ArgMax: argReduce('ArgMax'),
  ArgMin: argReduce('ArgMin'),
  NonMaxSuppressionV2: nonMaxSuppression(3),
  NonMaxSuppressionV3: nonMaxSuppression(3),
  NonMaxSuppressionV4: nonMaxSuppression(4),
  NonMaxSuppressionV5: nonMaxSuppression(5),
};
