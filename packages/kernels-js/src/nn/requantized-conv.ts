/** tsge::RequantizedConv: ConvInteger + int32 bias, then float32 requantization and a clamp. */
import { type HostTensor, type KernelContextV1, type KernelV1, TSGE_DOMAIN, readNumber } from '@tsge/metadef';
import {
  PACKED_WEIGHT,
  type PackedWeightShape,
  REQUANTIZED_CONV,
  dimProduct,
  packedWeightMismatch,
  packedWeightShape,
  unpackIntWeights,
} from '@tsge/ops/kernel-support';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { integerRange, roundHalfEven } from '../common/nn-quant.js';
import { defineKernel } from '../define.js';
import { convForward, convProblem, subtractZeroPoint } from './conv.js';

/** One value per output channel from a tensor of 1 or `channels` elements. */
function perChannel(ctx: KernelContextV1, t: HostTensor | undefined, channels: number, what: string): ArrayLike<number> | undefined {
  if (!t || t.data.length === 0) return undefined;
  if (t.data.length !== 1 && t.data.length !== channels)
    throw kernelError(ctx, `${what} has ${t.data.length} elements, expected 1 or ${channels}`);
  const values = Float64Array.from({ length: t.data.length }, (_, i) => readNumber(t, i));
  return t.data.length === 1 ? new Float64Array(channels).fill(values[0] as number) : values;
}

/** The requantization of one output: what the unfused Add, Cast, Mul, QuantizeLinear and Clip compute. */
export function requantize(acc: number, bias: number, scale: number, zeroPoint: number, lo: number, hi: number, exact = false): number {
  const q = exact
    ? roundHalfEven((acc + bias) * scale) + zeroPoint
    : roundHalfEven(Math.fround(Math.fround((acc + bias) | 0) * scale)) + zeroPoint;
  return q < lo ? lo : Math.min(q, hi);
}

/** The output range: Y's type range narrowed by y_min / y_max; lo > hi clamps everything to hi as Clip does. */
export function requantizedRange(ctx: KernelContextV1, dtype: HostTensor['type']): [number, number] {
  const [qmin, qmax] = integerRange(dtype);
  const min = ctx.tensor(7);
  const max = ctx.tensor(8);
  const lo = Math.max(qmin, min && min.data.length > 0 ? readNumber(min, 0) : qmin);
  const hi = Math.min(qmax, max && max.data.length > 0 ? readNumber(max, 0) : qmax);
  return [Math.min(lo, hi), hi];
}

/**
 * The shape a packed weight (`packed_weight`) holds, checked against the tensor; undefined for a
 * weight as given. A packed weight that does not hold the attribute's shape is a coded error
 * naming the node.
 */
export function packedWeightOf(ctx: KernelContextV1, w: HostTensor): PackedWeightShape | undefined {
  if (!ctx.attrs.has(PACKED_WEIGHT)) return undefined;
  const shape = packedWeightShape(ctx.attrs.ints(PACKED_WEIGHT));
  if (typeof shape === 'string') throw kernelError(ctx, `${PACKED_WEIGHT} ${shape}`);
  if (w.type !== 'int16' || ctx.tensor(3)) throw kernelError(ctx, `a packed weight is int16 with no w_zero_point, got ${w.type}`);
  const why = packedWeightMismatch(shape, w.dims, ctx.attrs.int('group', 1));
  if (why) throw kernelError(ctx, why);
  return shape;
}

/** The weight as [M, C/group, KH, KW]: as given, or a packed weight unpacked to its int16 values w − w_zero_point. */
export function logicalWeight(ctx: KernelContextV1, w: HostTensor): HostTensor {
  const shape = packedWeightOf(ctx, w);
  if (!shape) return w;
  return { type: 'int16', dims: [...shape.dims], data: unpackIntWeights(w.data as Int16Array, shape, ctx.attrs.int('group', 1)) };
}

export const requantizedConvKernel: KernelV1 = defineKernel({
  opType: REQUANTIZED_CONV,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const w = logicalWeight(ctx, requireTensor(ctx, 1));
    const p = convProblem(ctx, x, w);
    const xs = subtractZeroPoint(x, ctx.tensor(2), 1, x.data.length || 1);
    const ws = subtractZeroPoint(w, ctx.tensor(3), p.outChannels, dimProduct(w.dims, 1) || 1);
    const bias = perChannel(ctx, ctx.tensor(4), p.outChannels, 'bias');
    const scale = perChannel(ctx, requireTensor(ctx, 5), p.outChannels, 'scale') as ArrayLike<number>;
    const zpT = requireTensor(ctx, 6);
    const zp = readNumber(zpT, 0);
    const [lo, hi] = requantizedRange(ctx, zpT.type);
    const dims = [p.batch, p.outChannels, ...p.geometry.outDims];
    const acc = new Float64Array(dimProduct(dims));
    convForward(xs, ws, undefined, acc, p);
    const outSize = dimProduct(p.geometry.outDims);
    const exact = ctx.attrs.int('exact_product', 0) === 1;
    const y = ctx.output(0, dims, zpT.type).data as Uint8Array | Int8Array;
    for (let i = 0; i < acc.length; i++) {
      const m = Math.floor(i / outSize) % p.outChannels;
      y[i] = requantize(acc[i] as number, bias ? (bias[m] as number) : 0, scale[m] as number, zp, lo, hi, exact);
    }
  },
});
