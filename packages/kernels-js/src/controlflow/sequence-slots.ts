// tsge::SequenceReserve, SequenceSet, SequenceRead, SequenceResize and SequenceLengths: sequences
// whose slots may stand for elements never written (SequenceValue.unwritten; see the op definitions in @tsge/ops).
import {
  type DataType,
  type HostTensor,
  type KernelContextV1,
  type SequenceValue,
  TSGE_DOMAIN,
  createTensor,
  isSequenceValue,
  readNumber,
} from '@tsge/metadef';
import {
  SEQUENCE_CONCAT,
  SEQUENCE_LENGTHS,
  SEQUENCE_READ,
  SEQUENCE_RESERVE,
  SEQUENCE_RESIZE,
  SEQUENCE_SET,
  SEQUENCE_SLOT_ROWS,
  dtypeAttr,
} from '@tsge/ops/kernel-support';
import { copyBlock, product } from '../common/tensor-copy.js';
import { intList, kernelError, requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';

/** Most slots a sequence may be reserved or grown to (a count from a model, checked before allocating). */
const MAX_SLOTS = 1 << 24;

function requireSequence(ctx: KernelContextV1, index: number): SequenceValue {
  const v = ctx.input(index);
  if (!isSequenceValue(v)) throw kernelError(ctx, `input ${index} must be a sequence`);
  return v;
}

/** A sequence whose items may be unwritten slots (the mask and flag are dropped when none is). */
export function slotted(
  elementType: DataType,
  items: readonly HostTensor[],
  unwritten: readonly boolean[] | undefined,
  unshaped = false,
): SequenceValue {
  if (!unwritten?.includes(true)) return { kind: 'sequence', elementType, items };
  return { kind: 'sequence', elementType, items, unwritten, ...(unshaped ? { unshaped } : {}) };
}

/** Gives the unwritten items of an unshaped sequence the shape of `element` (zeros), in place. */
export function shapeSlots(items: HostTensor[], unwritten: readonly boolean[], element: HostTensor): void {
  const zeros = createTensor(element.type, element.dims);
  for (let i = 0; i < items.length; i++) if (unwritten[i]) items[i] = zeros;
}

/** Refuses unwritten items of a shape nothing has given yet, for a reader that needs their values. */
export function refuseUnshaped(ctx: KernelContextV1, s: SequenceValue, at?: number): void {
  if (!s.unshaped || !s.unwritten) return;
  const bad = at === undefined ? s.unwritten.indexOf(true) : s.unwritten[at] ? at : -1;
  if (bad >= 0) throw kernelError(ctx, `element ${bad} was never written and its shape is not known`);
}

/** The rows of `t` along axis 0, each a tensor of t's other dimensions. */
function rowsOf(t: HostTensor): HostTensor[] {
  const [count = 0, ...dims] = t.dims;
  const size = product(t.dims, 1);
  return Array.from({ length: count }, (_, r) => {
    const row = createTensor(t.type, dims);
    copyBlock(t.data, r * size, row.data, 0, size);
    return row;
  });
}

export const sequenceReserveKernel = defineKernel({
  opType: SEQUENCE_RESERVE,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const count = readNumber(requireTensor(ctx, 0), 0);
    if (!(Number.isSafeInteger(count) && count >= 0 && count <= MAX_SLOTS))
      throw kernelError(ctx, `count ${count} is not an integer in [0, ${MAX_SLOTS}]`);
    const shapeT = ctx.tensor(1);
    const dims = shapeT ? intList(shapeT) : [0];
    if (dims.some((d) => !(Number.isSafeInteger(d) && d >= 0)) || product(dims) * count > 2 ** 31)
      throw kernelError(ctx, `element shape [${dims.join(',')}] is not a known shape of at most 2^31 elements in all`);
    const dtype = dtypeAttr(ctx, 'float32');
    // the slots share one zero tensor: sequence items are never written in place
    const zeros = createTensor(dtype, dims);
    ctx.setOutput(0, slotted(dtype, new Array<HostTensor>(count).fill(zeros), new Array<boolean>(count).fill(true), !shapeT));
  },
});

export const sequenceSetKernel = defineKernel({
  opType: SEQUENCE_SET,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    const p = requireTensor(ctx, 1);
    const t = requireTensor(ctx, 2);
    if (t.type !== s.elementType) throw kernelError(ctx, `tensor dtype ${t.type} differs from the sequence's ${s.elementType}`);
    if (p.dims.length > 1) throw kernelError(ctx, `position must be a scalar or 1-D, got rank ${p.dims.length}`);
    const rows = p.dims.length === 1;
    if (rows && t.dims[0] !== p.dims[0])
      throw kernelError(ctx, `${p.dims[0]} positions for a tensor of ${t.dims.length === 0 ? 'no' : t.dims[0]} rows`);
    const positions = rows ? intList(p) : [readNumber(p, 0)];
    const elements = rows ? rowsOf(t) : [t];
    const grow = ctx.attrs.int('grow', 0) === 1;
    const once = ctx.attrs.int('once', 0) === 1;
    const items = [...s.items];
    const unwritten = s.unwritten ? [...s.unwritten] : new Array<boolean>(items.length).fill(false);
    for (let k = 0; k < positions.length; k++) {
      const at = positions[k] as number;
      const element = elements[k] as HostTensor;
      const limit = grow ? MAX_SLOTS : items.length;
      if (!(Number.isSafeInteger(at) && at >= 0 && at < limit))
        throw kernelError(ctx, `position ${at} is out of range for a sequence of ${items.length}${grow ? ' (it may grow)' : ''}`);
      if (at >= items.length) {
        const zeros = createTensor(element.type, element.dims);
        while (items.length < at) {
          items.push(zeros);
          unwritten.push(true);
        }
        items.push(element);
        unwritten.push(false);
      } else {
        if (once && !unwritten[at]) throw kernelError(ctx, `could not write index ${at}: it has already been written to`);
        items[at] = element;
        unwritten[at] = false;
      }
    }
    // slots reserved before the element shape was known take the shape of the element written last
    const last = elements[elements.length - 1];
    if (s.unshaped && last) shapeSlots(items, unwritten, last);
    ctx.setOutput(0, slotted(s.elementType, items, unwritten, s.unshaped === true && !last));
  },
});

export const sequenceReadKernel = defineKernel({
  opType: SEQUENCE_READ,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    const at = readNumber(requireTensor(ctx, 1), 0);
    if (!(Number.isSafeInteger(at) && at >= 0 && at < s.items.length))
      throw kernelError(ctx, `position ${at} is out of range for a sequence of ${s.items.length}`);
    if (s.unwritten?.[at]) throw kernelError(ctx, `could not read index ${at}: it has not yet been written to`);
    ctx.setOutput(0, s.items[at] as HostTensor);
  },
});

/** An element shape input (every dimension known and at most 2^31 elements), or undefined when absent. */
function shapeInput(ctx: KernelContextV1, index: number): number[] | undefined {
  const t = ctx.tensor(index);
  if (!t) return undefined;
  const dims = intList(t);
  if (dims.some((d) => !(Number.isSafeInteger(d) && d >= 0)) || product(dims) > 2 ** 31)
    throw kernelError(ctx, `element shape [${dims.join(',')}] is not a known shape of at most 2^31 elements`);
  return dims;
}

export const sequenceResizeKernel = defineKernel({
  opType: SEQUENCE_RESIZE,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    const size = readNumber(requireTensor(ctx, 1), 0);
    if (!(Number.isSafeInteger(size) && size >= 0 && size <= MAX_SLOTS))
      throw kernelError(ctx, `size ${size} is not an integer in [0, ${MAX_SLOTS}]`);
    const old = s.items.length;
    const unwritten = s.unwritten ? s.unwritten.slice(0, size) : new Array<boolean>(Math.min(size, old)).fill(false);
    const items = s.items.slice(0, size);
    if (size <= old) {
      ctx.setOutput(0, slotted(s.elementType, items, unwritten, s.unshaped === true));
      return;
    }
    const given = shapeInput(ctx, 2);
    const last = s.items[old - 1];
    const dims = given ?? (s.unshaped ? undefined : last?.dims) ?? [0];
    if (product(dims) * (size - old) > 2 ** 31)
      throw kernelError(ctx, `${size - old} new slots of [${dims.join(',')}] are too many elements`);
    const zeros = createTensor(s.elementType, dims);
    while (items.length < size) {
      items.push(zeros);
      unwritten.push(true);
    }
    // a given element shape shapes the slots an unshaped sequence has too
    if (given && s.unshaped) shapeSlots(items, unwritten, zeros);
    const unshaped = given ? false : s.unshaped === true || last === undefined;
    ctx.setOutput(0, slotted(s.elementType, items, unwritten, unshaped));
  },
});

export const sequenceLengthsKernel = defineKernel({
  opType: SEQUENCE_LENGTHS,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    refuseUnshaped(ctx, s);
    const lengths = new BigInt64Array(s.items.length);
    s.items.forEach((t, k) => {
      if (t.dims.length === 0) throw kernelError(ctx, `element ${k} is a scalar; lengths need elements of rank 1 or more`);
      lengths[k] = BigInt(t.dims[0] as number);
    });
    ctx.setOutput(0, createTensor('int64', [s.items.length], lengths));
  },
});

export const sequenceSlotRowsKernel = defineKernel({
  opType: SEQUENCE_SLOT_ROWS,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const s = requireSequence(ctx, 0);
    const leading = intList(requireTensor(ctx, 1));
    const trailing = shapeInput(ctx, 2);
    const items = [...s.items];
    const unwritten = s.unwritten ?? [];
    let unshapedLeft = false;
    for (let k = 0; k < items.length; k++) {
      if (!unwritten[k]) continue;
      if (k >= leading.length) {
        unshapedLeft ||= s.unshaped === true;
        continue;
      }
      const first = leading[k] as number;
      if (!(Number.isSafeInteger(first) && first >= 0)) throw kernelError(ctx, `leading_dims[${k}] = ${first} is not a size`);
      if (s.unshaped && !trailing) refuseUnshaped(ctx, s, k);
      const dims = [first, ...(trailing ?? (items[k] as HostTensor).dims.slice(1))];
      if (product(dims) > 2 ** 31) throw kernelError(ctx, `slot ${k} of shape [${dims.join(',')}] has too many elements`);
      items[k] = createTensor(s.elementType, dims);
    }
    ctx.setOutput(0, slotted(s.elementType, items, s.unwritten, unshapedLeft));
  },
});

export const sequenceConcatKernel = defineKernel({
  opType: SEQUENCE_CONCAT,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const a = requireSequence(ctx, 0);
    const b = requireSequence(ctx, 1);
    if (a.elementType !== b.elementType) throw kernelError(ctx, `element types ${a.elementType} and ${b.elementType} differ`);
    if (a.items.length + b.items.length > MAX_SLOTS) throw kernelError(ctx, `${a.items.length} + ${b.items.length} items are too many`);
    const mask = (s: SequenceValue) => s.unwritten ?? new Array<boolean>(s.items.length).fill(false);
    // the flag covers every unwritten slot: one side's unshaped slots make the joined ones refuse reads
    const unshaped = (a.unshaped === true && mask(a).includes(true)) || (b.unshaped === true && mask(b).includes(true));
    ctx.setOutput(0, slotted(a.elementType, [...a.items, ...b.items], [...mask(a), ...mask(b)], unshaped));
  },
});

export const sequenceSlotKernels = [
  sequenceReserveKernel,
  sequenceSetKernel,
  sequenceReadKernel,
  sequenceResizeKernel,
  sequenceLengthsKernel,
  sequenceSlotRowsKernel,
  sequenceConcatKernel,
];
