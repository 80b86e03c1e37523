// TF1 TensorArrays (`TensorArray*V3`) and TF2 TensorLists as ONNX sequences. PopBack erases the
// last element (SequenceErase's default position) and reads it; Concat joins the elements on axis 0. A TensorArray's flow
// output is the sequence (it is what loops carry); its handle is the array's size, so
// TensorArraySizeV3 of a fixed-size array is the handle. Writes and SetItems insert at their index:
// arrays are written in index order (as tf.while_loop and tf.map_fn do); an index past the written
// length fails at run time in SequenceInsert, never silently. A sequence's ValueInfo rank is its
// elements' rank.
import { ONNX_DTYPE, type Value, attr } from '@tsge/metadef';
import type { ConvertContext } from '../import/context.js';
import type { ConverterTable, OpConverter } from './registry.js';

function emptySequence(ctx: ConvertContext, dtypeAttr: string, elementRank: number | undefined, reservedList = false): Value {
  const dtype = ctx.attrs.dtype(dtypeAttr);
  const v = ctx.op1('SequenceEmpty', [], { dtype: attr.int(ONNX_DTYPE[dtype]) });
  return ctx.note(v, {
    dtype,
    sequence: true,
    emptySequence: true,
    ...(reservedList ? { reservedList } : {}),
    ...(elementRank !== undefined ? { rank: elementRank } : {}),
  });
}

/** A list whose TensorFlow length is not its written length (see ValueInfo.reservedList). */
function unreservedList(ctx: ConvertContext, i: number): Value {
  const seq = sequenceInput(ctx, i);
  if (ctx.info(seq).reservedList)
    throw ctx.problem('the length and last element of a TensorListReserve list are not supported (its elements are inserted as written)');
  return seq;
}

function sequenceInput(ctx: ConvertContext, i: number): Value {
  const v = ctx.input(i);
  if (!ctx.info(v).sequence) throw ctx.problem(`input ${i} is not a TensorArray flow or TensorList`);
  return v;
}

/** The rank of a shape given as a constant input (-1 or a negative scalar: unknown rank). */
function shapeInputRank(ctx: ConvertContext, i: number): number | undefined {
  const c = ctx.constantOf(i);
  return c?.dims.length === 1 ? c.dims[0] : undefined;
}

function elementInfo(ctx: ConvertContext, seq: Value, extraRank = 0): Parameters<ConvertContext['note']>[1] {
  const { dtype, rank } = ctx.info(seq);
  return { ...(dtype ? { dtype } : {}), ...(rank !== undefined ? { rank: rank + extraRank } : {}) };
}

/** Inserts `item` at `index` (in-order writes; see the file comment). */
function insert(ctx: ConvertContext, seq: Value, item: Value, index: Value): Value {
  const rank = ctx.rankOf(item) ?? ctx.info(seq).rank;
  const dtype = ctx.dtypeOf(item) ?? ctx.info(seq).dtype;
  return ctx.note(ctx.op1('SequenceInsert', [seq, item, index]), {
    sequence: true,
    ...(ctx.info(seq).reservedList ? { reservedList: true } : {}),
    ...(dtype ? { dtype } : {}),
    ...(rank !== undefined ? { rank } : {}),
  });
}

function stack(ctx: ConvertContext, seq: Value): Value {
  return ctx.note(ctx.op1('ConcatFromSequence', [seq], { axis: attr.int(0), new_axis: attr.int(1) }), elementInfo(ctx, seq, 1));
}

function gather(ctx: ConvertContext, seq: Value, indices: Value): Value {
  const ri = ctx.rankOf(indices);
  const { dtype, rank } = ctx.info(seq);
  return ctx.note(ctx.op1('Gather', [stack(ctx, seq), indices], { axis: attr.int(0) }), {
    ...(dtype ? { dtype } : {}),
    ...(rank !== undefined && ri !== undefined ? { rank: rank + ri } : {}),
  });
}

/** `value` split along axis 0 into a sequence of its rows. */
function unstack(ctx: ConvertContext, value: Value): Value {
  const rank = ctx.rankOf(value);
  const dtype = ctx.dtypeOf(value);
  return ctx.note(ctx.op1('SplitToSequence', [value], { axis: attr.int(0), keepdims: attr.int(0) }), {
    sequence: true,
    ...(dtype ? { dtype } : {}),
    ...(rank !== undefined ? { rank: rank - 1 } : {}),
  });
}

/** Writes to a whole array at once (Scatter, Split) replace it: its flow must be a new, empty array. */
function requireEmpty(ctx: ConvertContext, i: number): void {
  if (!ctx.info(sequenceInput(ctx, i)).emptySequence)
    throw ctx.problem('scatters and splits are supported into a new TensorArray only (its flow input must come from TensorArrayV3)');
}

const sizeOf = (ctx: ConvertContext, seq: Value) =>
  ctx.note(ctx.cast(ctx.op1('SequenceLength', [seq]), 'int32'), { dtype: 'int32', rank: 0 });

const tensorArray: OpConverter = (ctx) => {
  const size = ctx.input(0);
  const dynamic = ctx.attrs.bool('dynamic_size', false);
  const shape = ctx.attrs.shape('element_shape');
  const flow = emptySequence(ctx, 'dtype', shape?.length);
  const handle = ctx.note(ctx.op1('Identity', [ctx.cast(size, 'int32')]), { dtype: 'int32', rank: 0, fixedSizeArray: !dynamic });
  return [handle, flow];
};

export const tensorListConverters: ConverterTable = {
  TensorArrayV3: tensorArray,
  TensorArrayWriteV3: (ctx) => [insert(ctx, sequenceInput(ctx, 3), ctx.input(2), ctx.input(1))],
  TensorArrayReadV3: (ctx) => [ctx.note(ctx.op1('SequenceAt', [sequenceInput(ctx, 2), ctx.input(1)]), elementInfo(ctx, ctx.input(2)))],
  TensorArrayGatherV3: (ctx) => [gather(ctx, sequenceInput(ctx, 2), ctx.input(1))],
  TensorArrayScatterV3: (ctx) => {
    requireEmpty(ctx, 3);
    // element indices[k] = value[k]: value reordered by the inverse permutation, then unstacked
    const indices = ctx.toInt64(ctx.input(1));
    const count = ctx.op1('Reshape', [ctx.op1('Shape', [indices]), ctx.int64s([], [0])]);
    const positions = ctx.op1('Range', [ctx.int64s([0], []), count, ctx.int64s([1], [])]);
    const inverse = ctx.op1('ScatterElements', [indices, indices, positions], { axis: attr.int(0) });
    const value = ctx.input(2);
    const rank = ctx.rankOf(value);
    const dtype = ctx.dtypeOf(value);
    const ordered = ctx.note(ctx.op1('Gather', [value, inverse], { axis: attr.int(0) }), {
      ...(rank !== undefined ? { rank } : {}),
      ...(dtype ? { dtype } : {}),
    });
    return [unstack(ctx, ordered)];
  },
  TensorArraySplitV3: (ctx) => {
    requireEmpty(ctx, 3);
    const value = ctx.input(1);
    const rank = ctx.rankOf(value);
    const dtype = ctx.dtypeOf(value);
    const seq = ctx.op1('SplitToSequence', [value, ctx.toInt64(ctx.input(2))], { axis: attr.int(0) });
    return [ctx.note(seq, { sequence: true, ...(dtype ? { dtype } : {}), ...(rank !== undefined ? { rank } : {}) })];
  },
  // the lengths output (each element's first dimension) is not produced: a consumer of it is refused
  TensorArrayConcatV3: (ctx) => {
    const seq = sequenceInput(ctx, 1);
    return [ctx.note(ctx.op1('ConcatFromSequence', [seq], { axis: attr.int(0), new_axis: attr.int(0) }), elementInfo(ctx, seq))];
  },
  TensorArraySizeV3: (ctx) => {
    const handle = ctx.input(0);
    return [ctx.info(handle).fixedSizeArray ? handle : sizeOf(ctx, sequenceInput(ctx, 1))];
  },
  TensorListReserve: (ctx) => [emptySequence(ctx, 'element_dtype', shapeInputRank(ctx, 0), true)],
  EmptyTensorList: (ctx) => [emptySequence(ctx, 'element_dtype', shapeInputRank(ctx, 0))],
  TensorListFromTensor: (ctx) => [unstack(ctx, ctx.input(0))],
  TensorListSetItem: (ctx) => [insert(ctx, sequenceInput(ctx, 0), ctx.input(2), ctx.input(1))],
  TensorListPushBack: (ctx) => {
    const seq = sequenceInput(ctx, 0);
    return [insert(ctx, seq, ctx.input(1), sizeOf(ctx, seq))];
  },
  TensorListLength: (ctx) => [sizeOf(ctx, unreservedList(ctx, 0))],
  TensorListPopBack: (ctx) => {
    const seq = unreservedList(ctx, 0);
    const { dtype, rank } = ctx.info(seq);
    const rest = ctx.note(ctx.op1('SequenceErase', [seq]), {
      sequence: true,
      ...(dtype ? { dtype } : {}),
      ...(rank !== undefined ? { rank } : {}),
    });
    return [rest, ctx.note(ctx.op1('SequenceAt', [seq, ctx.int64s([-1], [])]), elementInfo(ctx, seq))];
  },
  TensorListGetItem: (ctx) => [ctx.note(ctx.op1('SequenceAt', [sequenceInput(ctx, 0), ctx.input(1)]), elementInfo(ctx, ctx.input(0)))],
  TensorListStack: (ctx) => [stack(ctx, sequenceInput(ctx, 0))],
  TensorListGather: (ctx) => [gather(ctx, sequenceInput(ctx, 0), ctx.input(1))],
};
