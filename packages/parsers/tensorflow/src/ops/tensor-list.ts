// TF1 TensorArrays (`TensorArray*V3`) and TF2 TensorLists as sequences whose slots may stand for
// elements never written (SequenceValue.unwritten), with three tsge sequence ops beside ONNX's:
// - a TensorArrayV3 (of fixed or dynamic size) and a TensorListReserve list are
//   tsge::SequenceReserve: `size` slots never written, zeros of the element shape when it is known,
//   else shaped by the first element written; EmptyTensorList is an empty sequence;
// - a write, scatter or TensorListSetItem is tsge::SequenceSet: it replaces the elements at their
//   indices, in any order (a TensorArray's once each, as in TensorFlow); an index outside
//   [0, length) fails at run time naming the node, unless the array is dynamic (or SetItem has
//   resize_if_index_out_of_bounds), when the sequence grows to index + 1 and the slots between
//   stay unwritten (zeros of the element's shape);
// - TensorArrayReadV3 is tsge::SequenceRead, which fails on a slot never written as TensorFlow does,
//   while TensorListGetItem, stacks, gathers and pops read such a slot as its zeros (SequenceAt).
// - TensorListScatter(V2) is a reserved list (of num_elements slots, or none) that a SequenceSet
//   fills, growing it to the highest index + 1 unless num_elements bounds it; a scatter into an
//   existing list grows it likewise; TensorListResize is tsge::SequenceResize (truncates, or grows
//   by unwritten slots);
// - rows scattered into a list or array of known element shape are checked against it (a Concat
//   with a zero-row tensor of that shape, which fails at run time naming the node on a mismatch).
// PopBack erases the last element (SequenceErase's default position) and reads it; concats join the
// elements on axis 0 and give each element's first dimension as `lengths` (tsge::SequenceLengths);
// TensorListSplit is SplitToSequence. A TensorArray's flow output is the sequence (it is what loops carry); its
// handle is the array's size, so TensorArraySizeV3 of a fixed-size array is the handle. A
// sequence's ValueInfo rank is its elements' rank. Negative indices, which ONNX sequences would
// count from the end, fail: the tsge ops refuse them, and SequenceAt gets them moved out of range.
// Stacking an array with a known element shape gives [0, ...element_shape] when it is empty.
import { ONNX_DTYPE, type Value, attr, createTensor, toNumberArray } from '@tsge/metadef';
import type { ConvertContext, ValueInfo } from '../import/context.js';
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

/** A fixed-size array or reserved list: `size` slots never written (see the file comment). */
function reservedSequence(ctx: ConvertContext, dtypeAttr: string, size: Value, shape: readonly number[] | undefined): Value {
  const dtype = ctx.attrs.dtype(dtypeAttr);
  const known = knownShape(shape);
  const v = ctx.tsgeOp('SequenceReserve', [ctx.toInt64(size), ...(known ? [ctx.int64s(known)] : [])], {
    dtype: attr.int(ONNX_DTYPE[dtype]),
  });
  return ctx.note(v, {
    dtype,
    sequence: true,
    emptySequence: true,
    ...(known ? { elementShape: known } : {}),
    ...(shape !== undefined ? { rank: shape.length } : {}),
  });
}

/** The info a sequence derived from `seq` keeps (its dtype, element shape and kind). */
function sequenceInfo(ctx: ConvertContext, seq: Value, item?: Value): Parameters<ConvertContext['note']>[1] {
  const info = ctx.info(seq);
  const rank = (item ? ctx.rankOf(item) : undefined) ?? info.rank;
  const dtype = (item ? ctx.dtypeOf(item) : undefined) ?? info.dtype;
  return {
    sequence: true,
    ...(info.elementShape ? { elementShape: info.elementShape } : {}),
    ...(info.listShape ? { listShape: info.listShape } : {}),
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

/** A scatter's indices as 1-D int64, noted as such (a rank-1 position makes SequenceSet write rows). */
function rowIndices(ctx: ConvertContext, indices: Value): Value {
  const v = ctx.toInt64List(indices);
  return ctx.rankOf(v) === 1 ? v : ctx.note(v, { dtype: 'int64', rank: 1 });
}

/**
 * `rows` (a tensor of rows for a list or array of element shape `shape`) unchanged, or, with a
 * known `shape`, joined on axis 0 with a tensor of no rows of that shape: a Concat, which refuses
 * rows of another shape at run time naming the node, as TensorFlow refuses them.
 */
function checkedRows(ctx: ConvertContext, rows: Value, shape: readonly number[] | undefined): Value {
  const known = knownShape(shape);
  const dtype = ctx.dtypeOf(rows);
  if (!known || !dtype) return rows;
  const rank = ctx.rankOf(rows);
  if (rank !== undefined && rank !== known.length + 1)
    throw ctx.problem(`rows of rank ${rank} do not fit the element shape [${known.join(',')}]`);
  const given = rows.desc?.shape;
  if (given && given.length === known.length + 1 && given.slice(1).some((d, j) => typeof d === 'number' && d >= 0 && d !== known[j]))
    throw ctx.problem(`rows of shape [${given.join(',')}] do not fit the element shape [${known.join(',')}]`);
  const none = ctx.op1('Expand', [ctx.scalar(0, dtype), ctx.int64s([0, ...known])]);
  return ctx.note(ctx.op1('Concat', [rows, none], { axis: attr.int(0) }), { dtype, rank: known.length + 1 });
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

/**
 * A list's element shape as its op declares it in input i (TensorListElementShape's answer): a
 * scalar is an unknown rank, a negative dimension unknown; undefined when not a constant.
 */
function declaredShape(ctx: ConvertContext, i: number): ValueInfo['listShape'] {
  const c = ctx.constantOf(i);
  if (!c) return undefined;
  if (c.dims.length === 0) return 'unknown-rank';
  return toNumberArray(c).map((d) => Math.max(-1, d));
}

/** `list` noted with the element shape its op (input i) declares. */
function declared(ctx: ConvertContext, list: Value, i: number): Value {
  const listShape = declaredShape(ctx, i);
  return listShape ? ctx.note(list, { listShape }) : list;
}

function elementInfo(ctx: ConvertContext, seq: Value, extraRank = 0): Parameters<ConvertContext['note']>[1] {
  const { dtype, rank } = ctx.info(seq);
  return { ...(dtype ? { dtype } : {}), ...(rank !== undefined ? { rank: rank + extraRank } : {}) };
}

/**
 * Writes `item` at `index` (rows of `item` at the indices of a 1-D `index`) with tsge::SequenceSet,
 * growing the sequence when `grow` (see the file comment).
 */
function write(ctx: ConvertContext, seq: Value, item: Value, index: Value, options: { grow: boolean; once: boolean }): Value {
  const rows = ctx.rankOf(index) === 1;
  const rank = ctx.rankOf(item);
  const set = ctx.tsgeOp('SequenceSet', [seq, ctx.toInt64(index), item], {
    grow: attr.int(options.grow ? 1 : 0),
    once: attr.int(options.once ? 1 : 0),
  });
  const info = sequenceInfo(ctx, seq, rows ? undefined : item);
  return ctx.note(set, { ...info, ...(rows && rank !== undefined ? { rank: rank - 1 } : {}) });
}

/**
 * How a TensorArray is written: each element once, and growing unless its handle (input 0) is
 * known to be of a fixed size.
 */
const arrayWrite = (ctx: ConvertContext) => ({ grow: ctx.info(ctx.input(0)).fixedSizeArray !== true, once: true });

/**
 * The elements stacked on a new axis 0. With a known element shape a zero row is put first and
 * sliced off again, so an empty array stacks to [0, ...element_shape] as in TensorFlow (and slots
 * of a shape nothing has given take the zero row's, see SequenceValue.unshaped).
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

/** A split replaces the whole array: its flow must be a new array, nothing written yet. */
function requireEmpty(ctx: ConvertContext, i: number): void {
  if (!ctx.info(sequenceInput(ctx, i)).emptySequence)
    throw ctx.problem('splits are supported into a new TensorArray only (its flow input must come from TensorArrayV3)');
}

/**
 * TensorListScatter(tensor, indices, element_shape) and V2 (…, num_elements): a new list of
 * num_elements slots (or, for -1 and V1, of none, growing to the highest index + 1) with rows of
 * `tensor` written at `indices`. A num_elements known only at run time reserves that many slots but
 * does not bound the indices (the list grows past it instead of failing).
 */
function scatterList(ctx: ConvertContext, withCount: boolean): Value {
  const shape = shapeInput(ctx, 2);
  const rows = checkedRows(ctx, ctx.input(0), shape);
  const indices = rowIndices(ctx, ctx.input(1));
  let count: Value = ctx.int64s([0], []);
  let grow = true;
  if (withCount) {
    const c = ctx.constantOf(3);
    if (c) {
      const n = Number(c.data[0]);
      if (!(Number.isSafeInteger(n) && n >= -1)) throw ctx.problem(`num_elements ${n} must be -1 or more`);
      if (n >= 0) {
        count = ctx.int64s([n], []);
        grow = false;
      }
    } else count = ctx.op1('Max', [ctx.toInt64(ctx.input(3)), ctx.int64s([0], [])]);
  }
  const list = declared(ctx, reservedSequence(ctx, 'element_dtype', count, shape), 2);
  return write(ctx, list, rows, indices, { grow, once: false });
}

/**
 * TensorListConcat / TensorListConcatV2 / TensorArrayConcatV3: the elements joined on axis 0 and
 * each one's first dimension. With a known element shape a zero-row element is put first, so an
 * empty list joins to [0, ...element_shape[1:]] (the stacks do the same).
 */
function concat(ctx: ConvertContext, seq: Value, shapeHint?: readonly number[]): [Value, Value] {
  const info = elementInfo(ctx, seq);
  const elementShape = ctx.info(seq).elementShape ?? knownShape(shapeHint);
  const dtype = ctx.info(seq).dtype;
  const lengths = ctx.note(ctx.tsgeOp('SequenceLengths', [seq]), { dtype: 'int64', rank: 1 });
  if (!elementShape || elementShape.length === 0 || !dtype)
    return [ctx.note(ctx.op1('ConcatFromSequence', [seq], { axis: attr.int(0), new_axis: attr.int(0) }), info), lengths];
  const none = ctx.op1('Expand', [ctx.scalar(0, dtype), ctx.int64s([0, ...elementShape.slice(1)])]);
  const padded = ctx.op1('SequenceInsert', [seq, none, ctx.int64s([0], [])]);
  const joined = ctx.op1('ConcatFromSequence', [padded], { axis: attr.int(0), new_axis: attr.int(0) });
  return [ctx.note(joined, { dtype, rank: elementShape.length }), lengths];
}

/**
 * TensorListConcatV2's list with each unwritten slot k of leading_dims[k] rows, and past
 * `leading_dims` of element_shape[0] rows when that is known (tsge::SequenceSlotRows); other slots
 * keep their zeros' shape. The list itself when neither is given.
 */
function slotRows(ctx: ConvertContext): Value {
  const seq = sequenceInput(ctx, 0);
  const shape = shapeInput(ctx, 1);
  const first = shape?.[0] !== undefined && shape[0] >= 0 ? shape[0] : undefined;
  const leading = ctx.constantOf(2);
  // nothing to change: no leading_dims, and no first dimension or the slots' own
  const same = first === undefined || ctx.info(seq).elementShape?.[0] === first;
  if (same && leading?.data.length === 0) return seq;
  let dims = ctx.toInt64List(ctx.input(2));
  if (first !== undefined) {
    // entries past leading_dims: the element shape's first dimension
    const count = ctx.op1('Unsqueeze', [ctx.op1('SequenceLength', [seq]), ctx.int64s([0])]);
    const fill = ctx.op1('Expand', [ctx.int64s([first]), count]);
    const rest = ctx.op1('Slice', [fill, ctx.op1('Shape', [dims]), ctx.int64s([Number.MAX_SAFE_INTEGER])]);
    dims = ctx.op1('Concat', [dims, rest], { axis: attr.int(0) });
  }
  const trailing = knownShape(shape?.slice(1));
  const rows = ctx.tsgeOp('SequenceSlotRows', [seq, dims, ...(trailing && shape?.length ? [ctx.int64s(trailing)] : [])]);
  return ctx.note(rows, sequenceInfo(ctx, seq));
}

const sizeOf = (ctx: ConvertContext, seq: Value) =>
  ctx.note(ctx.cast(ctx.op1('SequenceLength', [seq]), 'int32'), { dtype: 'int32', rank: 0 });

const tensorArray: OpConverter = (ctx) => {
  const size = ctx.input(0);
  const dynamic = ctx.attrs.bool('dynamic_size', false);
  const shape = ctx.attrs.shape('element_shape');
  // a dynamic-size array starts at its size too, and grows as it is written
  const flow = reservedSequence(ctx, 'dtype', size, shape);
  const handle = ctx.note(ctx.op1('Identity', [ctx.cast(size, 'int32')]), { dtype: 'int32', rank: 0, fixedSizeArray: !dynamic });
  return [handle, flow];
};

/** A value that stands for `lists` (a TensorFlow Pack of list handles), known only when converting. */
function listBatch(ctx: ConvertContext, lists: readonly Value[]): Value {
  return ctx.note(ctx.op1('Identity', [lists[0]]), { listBatch: lists });
}

function batchInput(ctx: ConvertContext, i: number): readonly Value[] {
  const lists = ctx.info(ctx.input(i)).listBatch;
  if (!lists) throw ctx.problem(`input ${i} must be a batch of TensorLists packed where the graph can see it (a Pack of lists)`);
  return lists;
}

/** Pack of list handles on axis 0: a batch of lists, which PushBackBatch, ConcatLists and Unpack read. */
export function packLists(ctx: ConvertContext): Value[] {
  const lists = Array.from({ length: ctx.inputCount }, (_, i) => sequenceInput(ctx, i));
  const axis = ctx.attrs.int('axis', 0);
  if (axis !== 0 && axis !== -1) throw ctx.problem(`lists are packed on axis 0, not ${axis}`);
  return [listBatch(ctx, lists)];
}

/** Unpack of a batch of lists: the lists. */
export function unpackLists(ctx: ConvertContext): Value[] {
  const lists = batchInput(ctx, 0);
  const num = ctx.attrs.int('num');
  if (num !== lists.length) throw ctx.problem(`num ${num} differs from the ${lists.length} lists packed`);
  return [...lists];
}

export const tensorListConverters: ConverterTable = {
  // tensor[b] pushed onto list b of the batch
  TensorListPushBackBatch: (ctx) => {
    const lists = batchInput(ctx, 0);
    const tensor = ctx.input(1);
    const rank = ctx.rankOf(tensor);
    if (rank === 0) throw ctx.problem('tensor must have a batch dimension');
    const rows = tensor.desc?.shape?.[0];
    if (typeof rows === 'number' && rows >= 0 && rows !== lists.length)
      throw ctx.problem(`tensor has ${rows} rows for a batch of ${lists.length} lists`);
    const pushed = lists.map((list, b) => {
      const item = ctx.op1('Gather', [tensor, ctx.int64s([b], [])], { axis: attr.int(0) });
      ctx.note(item, { ...(ctx.dtypeOf(tensor) ? { dtype: ctx.dtypeOf(tensor) } : {}), ...(rank !== undefined ? { rank: rank - 1 } : {}) });
      return ctx.note(ctx.op1('SequenceInsert', [list, item]), sequenceInfo(ctx, list, item));
    });
    return [listBatch(ctx, pushed)];
  },
  // list b of the result is a[b]'s elements followed by b[b]'s
  TensorListConcatLists: (ctx) => {
    const a = batchInput(ctx, 0);
    const b = batchInput(ctx, 1);
    if (a.length !== b.length) throw ctx.problem(`batches of ${a.length} and ${b.length} lists`);
    return [
      listBatch(
        ctx,
        a.map((list, k) => ctx.note(ctx.tsgeOp('SequenceConcat', [list, b[k] as Value]), sequenceInfo(ctx, list))),
      ),
    ];
  },
  TensorArrayV3: tensorArray,
  TensorArrayWriteV3: (ctx) => [write(ctx, sequenceInput(ctx, 3), ctx.input(2), ctx.input(1), arrayWrite(ctx))],
  // a slot never written is an error, as in TensorFlow
  TensorArrayReadV3: (ctx) => {
    const seq = sequenceInput(ctx, 2);
    return [ctx.note(ctx.tsgeOp('SequenceRead', [seq, ctx.toInt64(ctx.input(1))]), elementInfo(ctx, seq))];
  },
  TensorArrayGatherV3: (ctx) => [gather(ctx, sequenceInput(ctx, 2), ctx.input(1), ctx.attrs.shape('element_shape'))],
  // element indices[k] = value[k]
  TensorArrayScatterV3: (ctx) => {
    const seq = sequenceInput(ctx, 3);
    const rows = checkedRows(ctx, ctx.input(2), ctx.info(seq).elementShape);
    return [write(ctx, seq, rows, rowIndices(ctx, ctx.input(1)), arrayWrite(ctx))];
  },
  TensorArraySplitV3: (ctx) => {
    requireEmpty(ctx, 3);
    const value = ctx.input(1);
    const rank = ctx.rankOf(value);
    const dtype = ctx.dtypeOf(value);
    const seq = ctx.op1('SplitToSequence', [value, ctx.toInt64(ctx.input(2))], { axis: attr.int(0) });
    return [ctx.note(seq, { sequence: true, ...(dtype ? { dtype } : {}), ...(rank !== undefined ? { rank } : {}) })];
  },
  // (value, lengths): lengths[k] is element k's first dimension
  TensorArrayConcatV3: (ctx) => {
    const seq = sequenceInput(ctx, 1);
    const except0 = ctx.attrs.shape('element_shape_except0');
    return concat(ctx, seq, except0 ? [0, ...except0] : undefined);
  },
  TensorArraySizeV3: (ctx) => {
    const handle = ctx.input(0);
    return [ctx.info(handle).fixedSizeArray ? handle : sizeOf(ctx, sequenceInput(ctx, 1))];
  },
  TensorListReserve: (ctx) => [declared(ctx, reservedSequence(ctx, 'element_dtype', ctx.input(1), shapeInput(ctx, 0)), 0)],
  EmptyTensorList: (ctx) => {
    const shape = shapeInput(ctx, 0);
    return [declared(ctx, emptySequence(ctx, 'element_dtype', shape, shape?.length), 0)];
  },
  TensorListFromTensor: (ctx) => [declared(ctx, unstack(ctx, ctx.input(0)), 1)],
  // the shape the list was declared with, not its elements' (TensorFlow's kernel answers so too)
  TensorListElementShape: (ctx) => {
    const shape = ctx.info(sequenceInput(ctx, 0)).listShape;
    if (!shape) throw ctx.problem("the list's declared element shape is not known when converting (it is not a constant)");
    const type = ctx.attrs.dtype('shape_type', 'int32');
    if (type !== 'int32' && type !== 'int64') throw ctx.problem(`shape_type ${type} must be int32 or int64`);
    const dims = shape === 'unknown-rank' ? [] : [shape.length];
    const t = createTensor(type, dims);
    const values = shape === 'unknown-rank' ? [-1] : shape;
    values.forEach((d, j) => {
      if (t.data instanceof BigInt64Array) t.data[j] = BigInt(d);
      else (t.data as Int32Array)[j] = d;
    });
    return [ctx.constant(t)];
  },
  // TensorFlow grows the list only when asked to (TF2's dynamic-size TensorArray asks)
  TensorListSetItem: (ctx) => [
    write(ctx, sequenceInput(ctx, 0), ctx.input(2), ctx.input(1), {
      grow: ctx.attrs.bool('resize_if_index_out_of_bounds', false),
      once: false,
    }),
  ],
  // appends after the last slot, written or reserved
  TensorListPushBack: (ctx) => {
    const seq = sequenceInput(ctx, 0);
    return [ctx.note(ctx.op1('SequenceInsert', [seq, ctx.input(1)]), sequenceInfo(ctx, seq, ctx.input(1)))];
  },
  TensorListLength: (ctx) => [sizeOf(ctx, sequenceInput(ctx, 0))],
  TensorListPopBack: (ctx) => {
    const seq = sequenceInput(ctx, 0);
    const rest = ctx.note(ctx.op1('SequenceErase', [seq]), sequenceInfo(ctx, seq));
    return [rest, ctx.note(ctx.op1('SequenceAt', [seq, ctx.int64s([-1], [])]), elementInfo(ctx, seq))];
  },
  // a slot never written reads as its zeros, as TensorFlow's for a list of known element shape
  TensorListGetItem: (ctx) => {
    const seq = sequenceInput(ctx, 0);
    const at = position(ctx, seq, ctx.input(1));
    const { elementShape, dtype } = ctx.info(seq);
    const hint = knownShape(shapeInput(ctx, 2));
    if (elementShape || !hint || !dtype) return [ctx.note(ctx.op1('SequenceAt', [seq, at]), elementInfo(ctx, seq))];
    // the op's element shape shapes slots nothing else has: a zero element put first gives them its
    // shape (SequenceInsert does), and the read skips it
    const zero = ctx.op1('Expand', [ctx.scalar(0, dtype), ctx.int64s(hint)]);
    const padded = ctx.op1('SequenceInsert', [seq, zero, ctx.int64s([0], [])]);
    const read = ctx.op1('SequenceAt', [padded, ctx.op1('Add', [at, ctx.int64s([1], [])])]);
    return [ctx.note(read, { dtype, rank: hint.length })];
  },
  TensorListStack: (ctx) => [stack(ctx, sequenceInput(ctx, 0), shapeInput(ctx, 1))],
  TensorListGather: (ctx) => [gather(ctx, sequenceInput(ctx, 0), ctx.input(1), shapeInput(ctx, 2))],
  TensorListScatter: (ctx) => [scatterList(ctx, false)],
  TensorListScatterV2: (ctx) => [scatterList(ctx, true)],
  // grows the list to the highest index + 1 (TensorFlow's resize), slots between unwritten
  TensorListScatterIntoExistingList: (ctx) => {
    const seq = sequenceInput(ctx, 0);
    const rows = checkedRows(ctx, ctx.input(1), ctx.info(seq).elementShape);
    return [write(ctx, seq, rows, rowIndices(ctx, ctx.input(2)), { grow: true, once: false })];
  },
  TensorListResize: (ctx) => {
    const seq = sequenceInput(ctx, 0);
    const shape = ctx.info(seq).elementShape;
    const resized = ctx.tsgeOp('SequenceResize', [seq, ctx.toInt64(ctx.input(1)), ...(shape ? [ctx.int64s(shape)] : [])]);
    return [ctx.note(resized, sequenceInfo(ctx, seq))];
  },
  // (tensor, lengths); V2's element_shape input, V1's attribute, give an empty list its shape
  TensorListConcat: (ctx) => concat(ctx, sequenceInput(ctx, 0), ctx.attrs.shape('element_shape')),
  TensorListConcatV2: (ctx) => concat(ctx, slotRows(ctx), shapeInput(ctx, 1)),
  // tensor split on axis 0 into pieces of `lengths` rows
  TensorListSplit: (ctx) => {
    const value = ctx.input(0);
    const rank = ctx.rankOf(value);
    const dtype = ctx.dtypeOf(value);
    const seq = ctx.op1('SplitToSequence', [value, ctx.toInt64List(ctx.input(2))], { axis: attr.int(0) });
    const shape = knownShape(shapeInput(ctx, 1));
    return [
      declared(
        ctx,
        ctx.note(seq, {
          sequence: true,
          ...(shape ? { elementShape: shape } : {}),
          ...(dtype ? { dtype } : {}),
          ...(rank !== undefined ? { rank } : {}),
        }),
        1,
      ),
    ];
  },
};
