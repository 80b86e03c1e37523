// Sequence ops: a sequence is an immutable SequenceValue; every op returns a new one.
import type { DataType, Dim, HostTensor, KernelContextV1, SequenceValue, ValueInfo } from '@tsge/metadef';
import { ALL_TENSOR_TYPES, InferenceError, createTensor, dataTypeFromOnnx, isDataType, isSequenceValue, readNumber } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { copyBlock, product } from '../common/tensor-copy.js';
import { intList, kernelAxis, kernelError, requireTensor, whereOf } from '../common/tensor-infer.js';
import { stackInto, stackedDims } from '../common/tensor-stack.js';
import { defineKernel, defineOp, param } from '../define.js';
import { concatInto } from '../tensor/concat-split.js';

const T = { name: 'T', allowed: ALL_TENSOR_TYPES };
const S = { name: 'S', allowed: ALL_TENSOR_TYPES, allowedKinds: ['seq(*)'] };
const I = { name: 'I', allowed: ['int32', 'int64'] as DataType[] };

/** ValueInfo of a sequence whose elements have `element`'s type and shape. */
export function sequenceInfo(element: ValueInfo): ValueInfo {
  return { kind: 'sequence', dtype: element.dtype, shape: [-2], element: { dtype: element.dtype, shape: element.shape } };
}

function sequence(elementType: DataType, items: readonly HostTensor[]): SequenceValue {
  return { kind: 'sequence', elementType, items };
}

function requireSequence(ctx: KernelContextV1, index: number): SequenceValue {
  const v = ctx.input(index);
  if (!isSequenceValue(v)) throw kernelError(ctx, `input ${index} must be a sequence`);
  return v;
}

/** A position input (scalar) normalised against a length; `inclusive` allows == length (insert). */
function position(ctx: KernelContextV1, index: number, length: number, inclusive: boolean, fallback: number): number {
  const t = ctx.tensor(index);
  if (!t) return fallback;
  const raw = readNumber(t, 0);
  const p = raw < 0 ? raw + length : raw;
  if (p < 0 || p > length || (!inclusive && p === length))
    throw kernelError(ctx, `position ${raw} is out of range for a sequence of ${length}`);
  return p;
}

function dtypeAttr(ctx: { readonly attrs: KernelContextV1['attrs'] }, fallback: DataType): DataType {
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

export const sequenceEmptyKernel = defineKernel({
  opType: 'SequenceEmpty',
  compute(ctx) {
    ctx.setOutput(0, sequence(dtypeAttr(ctx, 'float32'), []));
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

export const sequenceConstructKernel = defineKernel({
  opType: 'SequenceConstruct',
  compute(ctx) {
    const items: HostTensor[] = [];
    for (let i = 0; i < ctx.inputCount; i++) items.push(requireTensor(ctx, i));
    const first = items[0];
    if (!first) throw kernelError(ctx, 'needs at least one input');
    if (items.some((t) => t.type !== first.type)) throw kernelError(ctx, 'inputs differ in dtype');
    ctx.setOutput(0, sequence(first.type, items));
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

export const sequenceAtKernel = defineKernel({
  opType: 'SequenceAt',
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    if (!ctx.tensor(1)) throw kernelError(ctx, 'position is required');
    ctx.setOutput(0, s.items[position(ctx, 1, s.items.length, false, 0)] as HostTensor);
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

export const sequenceInsertKernel = defineKernel({
  opType: 'SequenceInsert',
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    const t = requireTensor(ctx, 1);
    if (s.items.length > 0 && t.type !== s.elementType)
      throw kernelError(ctx, `tensor dtype ${t.type} differs from the sequence's ${s.elementType}`);
    const at = position(ctx, 2, s.items.length, true, s.items.length);
    const items = [...s.items];
    items.splice(at, 0, t);
    ctx.setOutput(0, sequence(t.type, items));
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

export const sequenceEraseKernel = defineKernel({
  opType: 'SequenceErase',
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    if (s.items.length === 0) throw kernelError(ctx, 'cannot erase from an empty sequence');
    const at = position(ctx, 1, s.items.length, false, s.items.length - 1);
    const items = [...s.items];
    items.splice(at, 1);
    ctx.setOutput(0, sequence(s.elementType, items));
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

export const sequenceLengthKernel = defineKernel({
  opType: 'SequenceLength',
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    const y = ctx.output(0, [], 'int64');
    (y.data as BigInt64Array)[0] = BigInt(s.items.length);
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

export const splitToSequenceKernel = defineKernel({
  opType: 'SplitToSequence',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const axis = kernelAxis(ctx, ctx.attrs.int('axis', 0), x.dims.length);
    const axisDim = x.dims[axis] as number;
    const splitT = ctx.tensor(1);
    let sizes: number[];
    let squeeze = false;
    if (!splitT) {
      sizes = new Array<number>(axisDim).fill(1);
      squeeze = ctx.attrs.int('keepdims', 1) === 0;
    } else if (splitT.dims.length === 0) {
      const chunk = readNumber(splitT, 0);
      if (!(chunk > 0)) throw kernelError(ctx, `split ${chunk} must be positive`);
      sizes = [];
      for (let at = 0; at < axisDim; at += chunk) sizes.push(Math.min(chunk, axisDim - at));
    } else {
      sizes = intList(splitT);
      if (sizes.some((s) => s < 0) || sizes.reduce((a, b) => a + b, 0) !== axisDim)
        throw kernelError(ctx, `split [${sizes.join(',')}] does not sum to ${axisDim}`);
    }
    const outer = product(x.dims, 0, axis);
    const inner = product(x.dims, axis + 1);
    const items: HostTensor[] = [];
    let offset = 0;
    for (const size of sizes) {
      const dims = [...x.dims];
      if (squeeze) dims.splice(axis, 1);
      else dims[axis] = size;
      const t = createTensor(x.type, dims);
      const block = size * inner;
      for (let o = 0; o < outer; o++) copyBlock(x.data, o * axisDim * inner + offset, t.data, o * block, block);
      offset += block;
      items.push(t);
    }
    ctx.setOutput(0, sequence(x.type, items));
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

export const concatFromSequenceKernel = defineKernel({
  opType: 'ConcatFromSequence',
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    const first = s.items[0];
    if (!first) throw kernelError(ctx, 'cannot concatenate an empty sequence');
    const stack = ctx.attrs.int('new_axis', 0) === 1;
    const rank = first.dims.length + (stack ? 1 : 0);
    const raw = ctx.attrs.int('axis');
    if (raw < -rank || raw >= rank) throw kernelError(ctx, `axis ${raw} is out of range for rank ${rank}`);
    const axis = raw < 0 ? raw + rank : raw;
    if (stack) {
      const dims = stackedDims(s.items, axis);
      if (!dims) throw kernelError(ctx, 'sequence elements differ in shape');
      stackInto(s.items, axis, ctx.output(0, dims, first.type));
      return;
    }
    const dims = [...first.dims];
    dims[axis] = 0;
    for (const t of s.items) {
      if (t.dims.length !== first.dims.length || t.dims.some((d, i) => i !== axis && d !== first.dims[i]))
        throw kernelError(ctx, 'sequence elements differ off the axis');
      dims[axis] = (dims[axis] as number) + (t.dims[axis] as number);
    }
    concatInto(s.items, axis, ctx.output(0, dims, first.type));
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
export const sequenceKernels = [
  sequenceEmptyKernel,
  sequenceConstructKernel,
  sequenceAtKernel,
  sequenceInsertKernel,
  sequenceEraseKernel,
  sequenceLengthKernel,
  splitToSequenceKernel,
  concatFromSequenceKernel,
];
