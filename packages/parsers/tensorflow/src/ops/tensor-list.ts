// TF1 TensorArrays (`TensorArray*V3`) and TF2 TensorLists as ONNX sequences. PopBack erases the
// last element (SequenceErase's default position) and reads it; Concat joins the elements on axis 0. A TensorArray's flow
// output is the sequence (it is what loops carry); its handle is the array's size, so
// TensorArraySizeV3 of a fixed-size array is the handle. A sequence's ValueInfo rank is its
// elements' rank.
//
// A fixed-size array (TensorArrayV3 with dynamic_size false, TensorListReserve) whose element shape
// is fully known is *prefilled*: created holding `size` zero elements, so a write replaces the
// element at its index (SequenceErase then SequenceInsert) in any order, a scatter updates rows of
// the stacked array (ScatterND), and an index outside [0, size) fails at run time in the sequence
// kernel with a coded error naming the node. Other arrays (dynamic size, unknown element shape)
// insert at their index: they must be written in index order (as tf.while_loop and tf.map_fn do);
// an index past the written length fails at run time in SequenceInsert, never silently.
// Negative indices (which ONNX sequences would count from the end) are moved out of range first.
// Stacking an array with a known element shape gives [0, ...element_shape] when it is empty.
import { ONNX_DTYPE, type Value, attr } from '@tsge/metadef';
import type { ConvertContext } from '../import/context.js';
import type { ConverterTable, OpConverter } from './registry.js';

/** A shape with every dimension known, or undefined. */
function knownShape(shape: readonly number[] | undefined): readonly number[] | undefined {
  return shape?.every((d) => Number.isSafeInteger(d) && d >= 0) ? shape : undefined;
}

function emptySequence(
  ctx: ConvertContext,
  dtypeAttr: string,
  elementShape: readonly number[] | undefined,
  elementRank: number | undefined,
): Value {
  const dtype = ctx.attrs.dtype(dtypeAttr);
  const v = ctx.op1('SequenceEmpty', [], { dtype: attr.int(ONNX_DTYPE[dtype]) });
  const known = knownShape(elementShape);
  return ctx.note(v, {
    dtype,
    sequence: true,
    emptySequence: true,
    ...(known ? { elementShape: known } : {}),
    ...(elementRank !== undefined ? { rank: elementRank } : {}),
  });
}

/** A fixed-size array of `size` zero elements of the known `elementShape` (see the file comment). */
function prefilledSequence(ctx: ConvertContext, dtypeAttr: string, size: Value, elementShape: readonly number[]): Value {
  const dtype = ctx.attrs.dtype(dtypeAttr);
  const count = ctx.op1('Reshape', [ctx.toInt64(size), ctx.int64s([1])]);
  const dims = ctx.op1('Concat', [count, ctx.int64s(elementShape)], { axis: attr.int(0) });
  const zeros = ctx.note(ctx.op1('Expand', [ctx.scalar(0, dtype), dims]), { dtype, rank: elementShape.length + 1 });
  const v = ctx.op1('SplitToSequence', [zeros], { axis: attr.int(0), keepdims: attr.int(0) });
  return ctx.note(v, { dtype, sequence: true, emptySequence: true, prefilled: true, elementShape, rank: elementShape.length });
}

/** The info a sequence derived from `seq` keeps (its dtype, element shape and kind). */
function sequenceInfo(ctx: ConvertContext, seq: Value, item?: Value): Parameters<ConvertContext['note']>[1] {
  const info = ctx.info(seq);
  const rank = (item ? ctx.rankOf(item) : undefined) ?? info.rank;
  const dtype = (item ? ctx.dtypeOf(item) : undefined) ?? info.dtype;
  return {
    sequence: true,
    ...(info.reservedList ? { reservedList: true } : {}),
    ...(info.prefilled ? { prefilled: true } : {}),
    ...(info.elementShape ? { elementShape: info.elementShape } : {}),
    ...(dtype ? { dtype } : {}),
    ...(rank !== undefined ? { rank } : {}),
  };
}

/**
 * A TensorFlow index as an int64 sequence position: a negative one becomes the sequence's length,
 * which every sequence kernel refuses as out of range (ONNX would count it from the end).
 */
function position(ctx: ConvertContext, seq: Value, index: Value): Value {
  const i = ctx.toInt64(index);
  const c = ctx.info(i).constant;
  if (c && Number(c.data[0]) >= 0) return i;
  const negative = ctx.op1('Less', [i, ctx.int64s([0], [])]);
  return ctx.op1('Where', [negative, ctx.op1('SequenceLength', [seq]), i]);
}

/** A list whose TensorFlow length is not its written length (see ValueInfo.reservedList). */
function unreservedList(ctx: ConvertContext, i: number): Value {
  const seq = sequenceInput(ctx, i);
  if (ctx.info(seq).reservedList)
    throw ctx.problem(
      'the length and last element of a TensorListReserve list of unknown element shape are not supported (its elements are inserted as written)',
    );
  return seq;
}

function sequenceInput(ctx: ConvertContext, i: number): Value {
  const v = ctx.input(i);
  if (!ctx.info(v).sequence) throw ctx.problem(`input ${i} is not a TensorArray flow or TensorList`);
  return v;
}

/** A shape given as a constant input (-1 or a negative scalar: unknown rank; -1 dims unknown). */
function shapeInput(ctx: ConvertContext, i: number): number[] | undefined {
  const c = ctx.constantOf(i);
  return c?.dims.length === 1 ? Array.from(c.data, Number) : undefined;
}

function elementInfo(ctx: ConvertContext, seq: Value, extraRank = 0): Parameters<ConvertContext['note']>[1] {
  const { dtype, rank } = ctx.info(seq);
  return { ...(dtype ? { dtype } : {}), ...(rank !== undefined ? { rank: rank + extraRank } : {}) };
}

/** Writes `item` at `index`: replaces it in a prefilled array, else inserts it (see the file comment). */
function write(ctx: ConvertContext, seq: Value, item: Value, index: Value): Value {
  const at = position(ctx, seq, index);
  const info = sequenceInfo(ctx, seq, item);
  if (!ctx.info(seq).prefilled) return ctx.note(ctx.op1('SequenceInsert', [seq, item, at]), info);
  const erased = ctx.note(ctx.op1('SequenceErase', [seq, at]), sequenceInfo(ctx, seq));
  return ctx.note(ctx.op1('SequenceInsert', [erased, item, at]), info);
}

function read(ctx: ConvertContext, seq: Value, index: Value): Value {
  return ctx.note(ctx.op1('SequenceAt', [seq, position(ctx, seq, index)]), elementInfo(ctx, seq));
}

/**
 * The elements stacked on a new axis 0. With a known element shape a zero row is put first and
 * sliced off again, so an empty array stacks to [0, ...element_shape] as in TensorFlow.
 */
function stack(ctx: ConvertContext, seq: Value, shapeHint?: readonly number[]): Value {
  const info = elementInfo(ctx, seq, 1);
  const elementShape = ctx.info(seq).elementShape ?? knownShape(shapeHint);
  const dtype = ctx.info(seq).dtype;
  if (!elementShape || !dtype) return ctx.note(ctx.op1('ConcatFromSequence', [seq], { axis: attr.int(0), new_axis: attr.int(1) }), info);
  const zero = ctx.op1('Expand', [ctx.scalar(0, dtype), ctx.int64s(elementShape)]);
  const padded = ctx.op1('SequenceInsert', [seq, zero, ctx.int64s([0], [])]);
  const all = ctx.op1('ConcatFromSequence', [padded], { axis: attr.int(0), new_axis: attr.int(1) });
  const rows = ctx.op1('Slice', [all, ctx.int64s([1]), ctx.int64s([Number.MAX_SAFE_INTEGER]), ctx.int64s([0])]);
  return ctx.note(rows, { ...info, dtype, rank: elementShape.length + 1 });
}

function gather(ctx: ConvertContext, seq: Value, indices: Value, shapeHint?: readonly number[]): Value {
  const ri = ctx.rankOf(indices);
  const { dtype, rank } = ctx.info(seq);
  return ctx.note(ctx.op1('Gather', [stack(ctx, seq, shapeHint), indices], { axis: attr.int(0) }), {
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
  const known = knownShape(shape);
  const flow = !dynamic && known ? prefilledSequence(ctx, 'dtype', size, known) : emptySequence(ctx, 'dtype', shape, shape?.length);
  const handle = ctx.note(ctx.op1('Identity', [ctx.cast(size, 'int32')]), { dtype: 'int32', rank: 0, fixedSizeArray: !dynamic });
  return [handle, flow];
};

export const tensorListConverters: ConverterTable = {
  TensorArrayV3: tensorArray,
  TensorArrayWriteV3: (ctx) => [write(ctx, sequenceInput(ctx, 3), ctx.input(2), ctx.input(1))],
  TensorArrayReadV3: (ctx) => [read(ctx, sequenceInput(ctx, 2), ctx.input(1))],
  TensorArrayGatherV3: (ctx) => [gather(ctx, sequenceInput(ctx, 2), ctx.input(1), ctx.attrs.shape('element_shape'))],
  TensorArrayScatterV3: (ctx) => {
    const seq = sequenceInput(ctx, 3);
    if (ctx.info(seq).prefilled) {
      // rows indices[k] of the stacked array become value[k]; an index out of range (or negative) fails in ScatterND
      const raw = ctx.toInt64(ctx.input(1));
      const inRange = ctx.op1('Where', [ctx.op1('Less', [raw, ctx.int64s([0], [])]), ctx.op1('SequenceLength', [seq]), raw]);
      const indices = ctx.op1('Unsqueeze', [inRange, ctx.int64s([1])]);
      const rows = ctx.op1('ScatterND', [stack(ctx, seq), indices, ctx.input(2)]);
      return [ctx.note(ctx.op1('SplitToSequence', [rows], { axis: attr.int(0), keepdims: attr.int(0) }), sequenceInfo(ctx, seq))];
    }
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
  TensorListReserve: (ctx) => {
    const shape = shapeInput(ctx, 0);
    const known = knownShape(shape);
    if (known) return [prefilledSequence(ctx, 'element_dtype', ctx.input(1), known)];
    const seq = emptySequence(ctx, 'element_dtype', shape, shape?.length);
    return [ctx.note(seq, { ...ctx.info(seq), reservedList: true })];
  },
  EmptyTensorList: (ctx) => {
    const shape = shapeInput(ctx, 0);
    return [emptySequence(ctx, 'element_dtype', shape, shape?.length)];
  },
  TensorListFromTensor: (ctx) => [unstack(ctx, ctx.input(0))],
  TensorListSetItem: (ctx) => [write(ctx, sequenceInput(ctx, 0), ctx.input(2), ctx.input(1))],
  TensorListPushBack: (ctx) => {
    const seq = sequenceInput(ctx, 0);
    // appends, whether or not the list was reserved (a reserved list grows past its reserve)
    const { prefilled: _prefilled, ...info } = sequenceInfo(ctx, seq, ctx.input(1)) as { prefilled?: boolean };
    return [ctx.note(ctx.op1('SequenceInsert', [seq, ctx.input(1)]), info)];
  },
  TensorListLength: (ctx) => [sizeOf(ctx, unreservedList(ctx, 0))],
  TensorListPopBack: (ctx) => {
    const seq = unreservedList(ctx, 0);
    const { prefilled: _prefilled, ...kept } = sequenceInfo(ctx, seq) as { prefilled?: boolean };
    const rest = ctx.note(ctx.op1('SequenceErase', [seq]), kept);
    return [rest, ctx.note(ctx.op1('SequenceAt', [seq, ctx.int64s([-1], [])]), elementInfo(ctx, seq))];
  },
  TensorListGetItem: (ctx) => [read(ctx, sequenceInput(ctx, 0), ctx.input(1))],
  TensorListStack: (ctx) => [stack(ctx, sequenceInput(ctx, 0), shapeInput(ctx, 1))],
  TensorListGather: (ctx) => [gather(ctx, sequenceInput(ctx, 0), ctx.input(1), shapeInput(ctx, 2))],
};
