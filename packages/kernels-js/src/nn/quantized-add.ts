/** tsge::QuantizedAdd: LiteRT's fixed-point sum of two quantized tensors (see the op definition). */
import { type KernelContextV1, type KernelV1, TSGE_DOMAIN } from '@tsge/metadef';
import { QUANTIZED_ADD } from '@tsge/ops/kernel-support';
import { broadcastIndexMap } from '../common/broadcast.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { broadcastOrThrow } from '../common/math-binary.js';
import { integerRange } from '../common/nn-quant.js';
import { defineKernel } from '../define.js';

export interface QuantizedAddParams {
  readonly am: number;
  readonly bm: number;
  readonly bias: number;
  readonly shift: number;
  /** 2^-shift. */
  readonly scale: number;
  readonly zp: number;
  readonly lo: number;
  readonly hi: number;
}

/** The node's attributes, for outputs of byte type `dtype`. */
export function quantizedAddParams(ctx: KernelContextV1, dtype: 'uint8' | 'int8'): QuantizedAddParams {
  const [lo, hi] = integerRange(dtype);
  const shift = ctx.attrs.int('shift', 0);
  return {
    am: ctx.attrs.int('a_multiplier', 0),
    bm: ctx.attrs.int('b_multiplier', 0),
    bias: ctx.attrs.int('bias', 0),
    shift,
    scale: 2 ** -shift,
    zp: ctx.attrs.int('zero_point', 0),
    lo,
    hi,
  };
}

/** One output: the exact integer sum (doubles hold it exactly), floored by the shift, saturated. */
export function quantizedAddValue(a: number, b: number, p: QuantizedAddParams): number {
  const q = Math.floor((p.bias + a * p.am + b * p.bm) * p.scale) + p.zp;
  return q < p.lo ? p.lo : Math.min(q, p.hi);
}

export const quantizedAddKernel: KernelV1 = defineKernel({
  opType: QUANTIZED_ADD,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const a = requireTensor(ctx, 0);
    const b = requireTensor(ctx, 1);
    if (a.type !== b.type || (a.type !== 'uint8' && a.type !== 'int8'))
      throw kernelError(ctx, `inputs are ${a.type} and ${b.type}, expected two uint8 or two int8 tensors`);
    const dims = broadcastOrThrow(ctx, [a, b]);
    const p = quantizedAddParams(ctx, a.type);
    const y = ctx.output(0, dims, a.type).data as Uint8Array | Int8Array;
    const xa = a.data as Uint8Array | Int8Array;
    const xb = b.data as Uint8Array | Int8Array;
    const ia = broadcastIndexMap(a.dims, dims);
    const ib = broadcastIndexMap(b.dims, dims);
    for (let i = 0; i < y.length; i++) y[i] = quantizedAddValue(xa[ia[i] as number] as number, xb[ib[i] as number] as number, p);
  },
});
