// Sequences with slots, for TensorFlow's TensorArrays and TensorLists: a sequence may hold items
// that stand for elements never written (SequenceValue.unwritten). tsge::SequenceReserve makes
// `count` such slots, tsge::SequenceSet writes elements at their positions (growing the sequence
// when asked to), tsge::SequenceRead reads one and refuses a slot never written, tsge::SequenceResize
// truncates a sequence or grows it by unwritten slots and tsge::SequenceLengths gives each element's
// first dimension. The ONNX sequence ops keep the slots aligned (SequenceInsert, SequenceErase) and
// read a slot as its zeros.
import { type DataType, type Dim, type OpDefinitionV1, type ValueInfo, ALL_TENSOR_TYPES, TSGE_DOMAIN } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { dtypeAttr, sequenceInfo } from './sequence.js';

export const SEQUENCE_RESERVE = 'SequenceReserve';
export const SEQUENCE_SET = 'SequenceSet';
export const SEQUENCE_READ = 'SequenceRead';
export const SEQUENCE_RESIZE = 'SequenceResize';
export const SEQUENCE_LENGTHS = 'SequenceLengths';
export const SEQUENCE_SLOT_ROWS = 'SequenceSlotRows';
export const SEQUENCE_CONCAT = 'SequenceConcat';

const T = { name: 'T', allowed: ALL_TENSOR_TYPES };
const S = { name: 'S', allowed: ALL_TENSOR_TYPES, allowedKinds: ['seq(*)'] };
const I = { name: 'I', allowed: ['int32', 'int64'] as DataType[] };

/** The element type and shape two element infos share (a dimension they differ in is unknown). */
function merged(a: ValueInfo | undefined, b: ValueInfo): ValueInfo {
  const same = a && a.shape.length === b.shape.length && !(a.shape.length === 1 && a.shape[0] === -2);
  return { dtype: b.dtype, shape: same ? a.shape.map((d, j): Dim => (d === b.shape[j] ? d : -1)) : [-2] };
}

/**
 * tsge::SequenceReserve(count, element_shape?) → `count` slots never written: zeros of
 * `element_shape` (1-D int64, every dimension known) or, without it, tensors of no elements until
 * tsge::SequenceSet writes the first element, whose shape they then take.
 */
export const sequenceReserveDefinition: OpDefinitionV1 = defineOp({
  type: SEQUENCE_RESERVE,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'A sequence of `count` slots never written (zeros of element_shape when given).',
  inputs: [param.required('count', 'I'), param.optional('element_shape', 'int64')],
  outputs: [param.required('output_sequence', 'S')],
  attributes: [{ name: 'dtype', kind: 'int', required: true }],
  typeConstraints: [S, I],
  infer(ctx) {
    requireInput(ctx, 0);
    ctx.setOutput(0, sequenceInfo({ dtype: dtypeAttr(ctx, 'float32'), shape: [-2] }));
  },
});

/**
 * tsge::SequenceSet(input_sequence, position, tensor) → the sequence with the element at `position`
 * replaced by `tensor` (a scalar position) or the elements at positions[k] replaced by the rows
 * tensor[k] (a 1-D position). A position must lie in [0, length) unless `grow` is 1, when the
 * sequence grows to position + 1 with slots never written (zeros of the element's shape). With
 * `once` 1 a position may only be written while its slot is unwritten (TensorFlow's TensorArray).
 */
export const sequenceSetDefinition: OpDefinitionV1 = defineOp({
  type: SEQUENCE_SET,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'Writes elements at positions of a sequence (rows of `tensor` for a 1-D position), growing it when `grow` is 1.',
  inputs: [param.required('input_sequence', 'S'), param.required('position', 'I'), param.required('tensor', 'T')],
  outputs: [param.required('output_sequence', 'S')],
  attributes: [
    { name: 'grow', kind: 'int', default: { kind: 'int', value: 0 } },
    { name: 'once', kind: 'int', default: { kind: 'int', value: 0 } },
  ],
  typeConstraints: [S, I, T],
  infer(ctx) {
    const s = requireInput(ctx, 0);
    const p = requireInput(ctx, 1);
    const t = requireInput(ctx, 2);
    const rows = p.shape.length === 1 && p.shape[0] !== -2;
    const unknown = t.shape.length === 1 && t.shape[0] === -2;
    const element: ValueInfo = rows ? { dtype: t.dtype, shape: unknown ? [-2] : t.shape.slice(1) } : t;
    ctx.setOutput(0, sequenceInfo(merged(s.element, element)));
  },
});

/** tsge::SequenceRead(input_sequence, position) → the element at `position`, which must have been written. */
export const sequenceReadDefinition: OpDefinitionV1 = defineOp({
  type: SEQUENCE_READ,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'The element at a position in [0, length) of a sequence; a slot never written is an error.',
  inputs: [param.required('input_sequence', 'S'), param.required('position', 'I')],
  outputs: [param.required('tensor', 'T')],
  typeConstraints: [S, I, T],
  infer(ctx) {
    const s = requireInput(ctx, 0);
    ctx.setOutput(0, s.element ?? { dtype: s.dtype, shape: [-2] });
  },
});

/**
 * tsge::SequenceResize(input_sequence, size, element_shape?) → the first `size` elements of the
 * sequence, or all of them followed by slots never written up to `size` (zeros of `element_shape`
 * when given, else of the last item's shape; tensors of no elements, shaped by the next write, when
 * the sequence is empty too). TensorFlow's TensorListResize.
 */
export const sequenceResizeDefinition: OpDefinitionV1 = defineOp({
  type: SEQUENCE_RESIZE,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'The sequence truncated to `size` elements, or grown to `size` by slots never written.',
  inputs: [param.required('input_sequence', 'S'), param.required('size', 'I'), param.optional('element_shape', 'int64')],
  outputs: [param.required('output_sequence', 'S')],
  typeConstraints: [S, I],
  infer(ctx) {
    ctx.setOutput(0, requireInput(ctx, 0));
  },
});

/**
 * tsge::SequenceLengths(input_sequence) → 1-D int64: the first dimension of each element (an
 * unwritten slot's zeros count as written). TensorFlow's `lengths` output of TensorArrayConcatV3 and
 * TensorListConcat.
 */
export const sequenceLengthsDefinition: OpDefinitionV1 = defineOp({
  type: SEQUENCE_LENGTHS,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'The first dimension of each element of a sequence, as 1-D int64.',
  inputs: [param.required('input_sequence', 'S')],
  outputs: [param.required('lengths', 'int64')],
  typeConstraints: [S],
  infer(ctx) {
    requireInput(ctx, 0);
    ctx.setOutput(0, { dtype: 'int64', shape: [-1] });
  },
});

/**
 * tsge::SequenceSlotRows(input_sequence, leading_dims, trailing_shape?) → the sequence with each
 * slot k never written (k < size of `leading_dims`) made zeros of [leading_dims[k], ...rest], rest
 * being `trailing_shape` when given, else the slot's own dimensions after its first; written
 * elements and slots past `leading_dims` stay as they are. TensorFlow's TensorListConcatV2
 * `leading_dims`.
 */
export const sequenceSlotRowsDefinition: OpDefinitionV1 = defineOp({
  type: SEQUENCE_SLOT_ROWS,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'Gives the unwritten slots of a sequence their first dimension (leading_dims[k]) as zeros.',
  inputs: [param.required('input_sequence', 'S'), param.required('leading_dims', 'int64'), param.optional('trailing_shape', 'int64')],
  outputs: [param.required('output_sequence', 'S')],
  typeConstraints: [S],
  infer(ctx) {
    const s = requireInput(ctx, 0);
    requireInput(ctx, 1);
    const e = s.element;
    // the slots' first dimension may change: the element's first dimension is no longer known
    const element: ValueInfo | undefined =
      e && !(e.shape.length === 1 && e.shape[0] === -2) && e.shape.length > 0 ? { dtype: e.dtype, shape: [-1, ...e.shape.slice(1)] } : e;
    ctx.setOutput(0, element ? sequenceInfo(element) : s);
  },
});

/**
 * tsge::SequenceConcat(input_a, input_b) → the items of `input_a` followed by those of `input_b`,
 * unwritten slots kept unwritten. TensorFlow's TensorListConcatLists, for one pair of lists.
 */
export const sequenceConcatDefinition: OpDefinitionV1 = defineOp({
  type: SEQUENCE_CONCAT,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'The items of one sequence followed by those of another (of the same element type).',
  inputs: [param.required('input_a', 'S'), param.required('input_b', 'S')],
  outputs: [param.required('output_sequence', 'S')],
  typeConstraints: [S],
  infer(ctx) {
    const a = requireInput(ctx, 0);
    const b = requireInput(ctx, 1);
    ctx.setOutput(0, b.element ? sequenceInfo(merged(a.element, b.element)) : a);
  },
});

export const sequenceSlotDefinitions: readonly OpDefinitionV1[] = [
  sequenceReserveDefinition,
  sequenceSetDefinition,
  sequenceReadDefinition,
  sequenceResizeDefinition,
  sequenceLengthsDefinition,
  sequenceSlotRowsDefinition,
  sequenceConcatDefinition,
];
