// Inference and argument helpers shared by the tensor, controlflow and ml groups.
import { type HostTensor, type KernelContextV1, type Shape, TsgeError, isUnknownRank } from '@tsge/metadef';

/** A rank when the shape's rank is known. */
export function rankOfShape(shape: Shape): number | undefined {
  return isUnknownRank(shape) ? undefined : shape.length;
}

/** Kernel-side: a required tensor input, or a TsgeError naming the node. */
export function requireTensor(ctx: KernelContextV1, index: number): HostTensor {
  const t = ctx.tensor(index);
  if (!t) throw TsgeError.of('TSGE-E4003', { reason: `${ctx.opType} ${ctx.nodeName}: input ${index} is required` });
  return t;
}

/** Kernel-side failure with the node named (a bad model, not a bug). */
export function kernelError(ctx: { readonly opType: string; readonly nodeName: string }, reason: string): TsgeError {
  return TsgeError.of('TSGE-E4003', { reason: `${ctx.opType} ${ctx.nodeName}: ${reason}` });
}

/** Kernel-side normalised axis. */
export function kernelAxis(ctx: KernelContextV1, axis: number, rank: number): number {
  if (!Number.isInteger(axis) || axis < -rank || axis >= rank) throw kernelError(ctx, `axis ${axis} is out of range for rank ${rank}`);
  return axis < 0 ? axis + rank : axis;
}

/** Integer contents of a tensor (int32/int64 indices, shapes) as a Float64Array. */
export function indexValues(t: HostTensor): Float64Array {
  const data = t.data;
  const n = data.length;
  const out = new Float64Array(n);
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) out[i] = Number(data[i]);
  } else if (!Array.isArray(data)) {
    out.set(data as Float64Array);
  }
  return out;
}

/** Integer contents of a tensor as a plain number list (axes, shapes, pads). */
export function intList(t: HostTensor): number[] {
  return Array.from(indexValues(t));
}
