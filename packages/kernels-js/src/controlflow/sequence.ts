// Sequence ops: a sequence is an immutable SequenceValue; every op returns a new one.
import {
  type DataType,
  type HostTensor,
  type KernelContextV1,
  type SequenceValue,
  createTensor,
  isSequenceValue,
  readNumber,
} from '@tsge/metadef';
import { copyBlock, product } from '../common/tensor-copy.js';
import { intList, kernelAxis, kernelError, requireTensor } from '../common/tensor-infer.js';
import { stackInto, stackedDims } from '../common/tensor-stack.js';
import { defineKernel } from '../define.js';
import { concatInto } from '../tensor/concat-split.js';
import { dtypeAttr } from '@tsge/ops/kernel-support';
import { refuseUnshaped, shapeSlots, slotted } from './sequence-slots.js';

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

export const sequenceEmptyKernel = defineKernel({
  opType: 'SequenceEmpty',
  compute(ctx) {
    ctx.setOutput(0, sequence(dtypeAttr(ctx, 'float32'), []));
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

export const sequenceAtKernel = defineKernel({
  opType: 'SequenceAt',
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    if (!ctx.tensor(1)) throw kernelError(ctx, 'position is required');
    const at = position(ctx, 1, s.items.length, false, 0);
    // an unwritten slot reads as its zeros, unless nothing has given it a shape
    refuseUnshaped(ctx, s, at);
    ctx.setOutput(0, s.items[at] as HostTensor);
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
    // slots never written (SequenceValue.unwritten) stay aligned with their items; unshaped ones take t's shape
    const unwritten = s.unwritten && [...s.unwritten];
    unwritten?.splice(at, 0, false);
    if (s.unshaped && unwritten) shapeSlots(items, unwritten, t);
    ctx.setOutput(0, slotted(t.type, items, unwritten));
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
    const unwritten = s.unwritten && [...s.unwritten];
    unwritten?.splice(at, 1);
    ctx.setOutput(0, slotted(s.elementType, items, unwritten, s.unshaped));
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

export const concatFromSequenceKernel = defineKernel({
  opType: 'ConcatFromSequence',
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    const first = s.items[0];
    if (!first) throw kernelError(ctx, 'cannot concatenate an empty sequence');
    refuseUnshaped(ctx, s);
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
