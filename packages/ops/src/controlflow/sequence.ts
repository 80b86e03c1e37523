// Sequence ops: a sequence is an immutable SequenceValue; every op returns a new one.
import {
  type DataType,
  type Dim,
  type KernelContextV1,
  type ValueInfo,
  ALL_TENSOR_TYPES,
  InferenceError,
  dataTypeFromOnnx,
  isDataType,
} from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

const T = { name: 'T', allowed: ALL_TENSOR_TYPES };
const S = { name: 'S', allowed: ALL_TENSOR_TYPES, allowedKinds: ['seq(*)'] };
const I = { name: 'I', allowed: ['int32', 'int64'] as DataType[] };

/** ValueInfo of a sequence whose elements have `element`'s type and shape. */
export function sequenceInfo(element: ValueInfo): ValueInfo {
  return { kind: 'sequence', dtype: element.dtype, shape: [-2], element: { dtype: element.dtype, shape: element.shape } };
}

export function dtypeAttr(ctx: { readonly attrs: KernelContextV1['attrs'] }, fallback: DataType): DataType {
  const a = ctx.attrs.get('dtype');
  if (a?.kind === 'dtype') return a.value;
  if (a?.kind === 'int') return dataTypeFromOnnx(a.value) ?? fallback;
  if (a?.kind === 'string' && isDataType(a.value)) return a.value;
  return fallback;
}

export const sequenceEmptyOp = defineOp({
  type: 'SequenceEmpty',
  sinceVersion: 11,
  outputs: [param.required('output', 'S')],
  attributes: [{ name: 'dtype', kind: 'int' }],
  typeConstraints: [S],
  infer(ctx) {
    ctx.setOutput(0, sequenceInfo({ dtype: dtypeAttr(ctx, 'float32'), shape: [-2] }));
  },
});

export const sequenceConstructOp = defineOp({
  type: 'SequenceConstruct',
  sinceVersion: 11,
  inputs: [param.variadic('inputs', 'T')],
  outputs: [param.required('output_sequence', 'S')],
  typeConstraints: [T, S],
  infer(ctx) {
    let element: ValueInfo = requireInput(ctx, 0);
    for (let i = 1; i < ctx.inputCount; i++) {
      const v = requireInput(ctx, i);
      const same = v.shape.length === element.shape.length;
      element = { dtype: element.dtype, shape: same ? element.shape.map((d, j): Dim => (d === v.shape[j] ? d : -1)) : [-2] };
    }
    ctx.setOutput(0, sequenceInfo(element));
  },
});

function elementOf(ctx: Parameters<typeof sequenceAtOp.infer>[0]): ValueInfo {
  const s = requireInput(ctx, 0);
  return s.element ?? { dtype: s.dtype, shape: [-2] };
}

export const sequenceAtOp = defineOp({
  type: 'SequenceAt',
  sinceVersion: 11,
  inputs: [param.required('input_sequence', 'S'), param.required('position', 'I')],
  outputs: [param.required('tensor', 'T')],
  typeConstraints: [S, T, I],
  infer(ctx) {
    ctx.setOutput(0, elementOf(ctx));
  },
});

export const sequenceInsertOp = defineOp({
  type: 'SequenceInsert',
  sinceVersion: 11,
  inputs: [param.required('input_sequence', 'S'), param.required('tensor', 'T'), param.optional('position', 'I')],
  outputs: [param.required('output_sequence', 'S')],
  typeConstraints: [S, T, I],
  infer(ctx) {
    const s = requireInput(ctx, 0);
    const t = requireInput(ctx, 1);
    const e = s.element;
    const same = e && e.shape.length === t.shape.length;
    ctx.setOutput(0, sequenceInfo({ dtype: t.dtype, shape: same ? e.shape.map((d, j): Dim => (d === t.shape[j] ? d : -1)) : [-2] }));
  },
});

export const sequenceEraseOp = defineOp({
  type: 'SequenceErase',
  sinceVersion: 11,
  inputs: [param.required('input_sequence', 'S'), param.optional('position', 'I')],
  outputs: [param.required('output_sequence', 'S')],
  typeConstraints: [S, I],
  infer(ctx) {
    ctx.setOutput(0, requireInput(ctx, 0));
  },
});

export const sequenceLengthOp = defineOp({
  type: 'SequenceLength',
  sinceVersion: 11,
  inputs: [param.required('input_sequence', 'S')],
  outputs: [param.required('length', 'int64')],
  typeConstraints: [S],
  infer(ctx) {
    requireInput(ctx, 0);
    ctx.setOutput(0, { dtype: 'int64', shape: [] });
  },
});

export const splitToSequenceOp = defineOp({
  type: 'SplitToSequence',
  sinceVersion: 11,
  inputs: [param.required('input', 'T'), param.optional('split', 'I')],
  outputs: [param.required('output_sequence', 'S')],
  attributes: [
    { name: 'axis', kind: 'int', default: { kind: 'int', value: 0 } },
    { name: 'keepdims', kind: 'int', default: { kind: 'int', value: 1 } },
  ],
  typeConstraints: [T, I, S],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    if (x.shape.length === 1 && x.shape[0] === -2) {
      ctx.setOutput(0, sequenceInfo({ dtype: x.dtype, shape: [-2] }));
      return;
    }
    const rank = x.shape.length;
    const rawAxis = ctx.attrs.int('axis', 0);
    if (rawAxis < -rank || rawAxis >= rank) throw new InferenceError(`${whereOf(ctx)}: axis ${rawAxis} is out of range`);
    const axis = rawAxis < 0 ? rawAxis + rank : rawAxis;
    const shape: Dim[] = [...x.shape];
    if (!ctx.input(1) && ctx.attrs.int('keepdims', 1) === 0) shape.splice(axis, 1);
    else shape[axis] = ctx.input(1) ? -1 : 1;
    ctx.setOutput(0, sequenceInfo({ dtype: x.dtype, shape }));
  },
});

export const concatFromSequenceOp = defineOp({
  type: 'ConcatFromSequence',
  sinceVersion: 11,
  inputs: [param.required('input_sequence', 'S')],
  outputs: [param.required('concat_result', 'T')],
  attributes: [
    { name: 'axis', kind: 'int', required: true },
    { name: 'new_axis', kind: 'int', default: { kind: 'int', value: 0 } },
  ],
  typeConstraints: [S, T],
  infer(ctx) {
    const e = elementOf(ctx);
    if (e.shape.length === 1 && e.shape[0] === -2) {
      ctx.setOutput(0, { dtype: e.dtype, shape: [-2] });
      return;
    }
    const rank = e.shape.length + (ctx.attrs.int('new_axis', 0) === 1 ? 1 : 0);
    const raw = ctx.attrs.int('axis');
    if (raw < -rank || raw >= rank) throw new InferenceError(`${whereOf(ctx)}: axis ${raw} is out of range`);
    const axis = raw < 0 ? raw + rank : raw;
    const shape: Dim[] = [...e.shape];
    if (rank > e.shape.length) shape.splice(axis, 0, -1);
    else shape[axis] = -1;
    ctx.setOutput(0, { dtype: e.dtype, shape });
  },
});

export const sequenceOps = [
  sequenceEmptyOp,
  sequenceConstructOp,
  sequenceAtOp,
  sequenceInsertOp,
  sequenceEraseOp,
  sequenceLengthOp,
  splitToSequenceOp,
  concatFromSequenceOp,
];
