/**
 * The attention step onnxruntime's com.microsoft Attention and MultiHeadAttention share: per
 * (batch, head, query row) scores scale · q·k + key mask + attention_bias, causal keys excluded,
 * softmax and the weighted sum of values, in float64. Masked keys get mask_filter_value added (so
 * a fully masked row still averages, as onnxruntime computes it); causal keys are left out.
 */
import type { HostTensor, KernelContextV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { hasInput, readFloats } from '../common/nn-float-io.js';

export interface AttentionHeads {
  readonly batch: number;
  readonly heads: number;
  /** Query rows. */
  readonly seq: number;
  /** Past + new keys. */
  readonly total: number;
  readonly past: number;
  readonly headSize: number;
  readonly vHeadSize: number;
  /** [B, N, S, H]. */
  readonly q: Float64Array;
  /** [B, N, T, H]. */
  readonly k: Float64Array;
  /** [B, N, T, Hv]. */
  readonly v: Float64Array;
}

export interface AttentionMasking {
  readonly scale: number;
  readonly causal: boolean;
  /** Additive key mask [B, S, T] (0 or mask_filter_value). */
  readonly keyMask?: Float64Array;
  /** attention_bias with its batch and head strides (0 when broadcast). */
  readonly bias?: { readonly data: ArrayLike<number>; readonly batchStride: number; readonly headStride: number };
}

/**
 * The additive key mask of a mask_index / key_padding_mask: key lengths [B] (right padding), end
 * then start positions [2B] (left padding), raw 0/1 masks [B, T] or [B, S, T].
 */
export function keyMaskOf(
  ctx: KernelContextV1,
  mask: HostTensor,
  shape: { batch: number; seq: number; total: number },
  options: { filter: number; allowStart: boolean },
): Float64Array {
  const { batch, seq, total } = shape;
  if (mask.type !== 'int32') throw kernelError(ctx, `the mask must be int32, got ${mask.type}`);
  const m = mask.data as Int32Array;
  const out = new Float64Array(batch * seq * total);
  const dims = mask.dims;
  if (dims.length === 1 && (dims[0] === batch || (options.allowStart && dims[0] === 2 * batch))) {
    for (let b = 0; b < batch; b++) {
      const end = m[b] as number;
      const start = dims[0] === 2 * batch ? Math.min(m[batch + b] as number, total) : 0;
      for (let s = 0; s < seq; s++)
        for (let t = 0; t < total; t++) if (t >= end || t < start) out[(b * seq + s) * total + t] = options.filter;
    }
    return out;
  }
  if (dims.length === 2 && dims[0] === batch && dims[1] === total) {
    for (let b = 0; b < batch; b++)
      for (let s = 0; s < seq; s++)
        for (let t = 0; t < total; t++) if ((m[b * total + t] as number) <= 0) out[(b * seq + s) * total + t] = options.filter;
    return out;
  }
  if (dims.length === 3 && dims[0] === batch && dims[1] === seq && dims[2] === total) {
    for (let i = 0; i < out.length; i++) if ((m[i] as number) <= 0) out[i] = options.filter;
    return out;
  }
  const forms = options.allowStart ? `[${batch}], [${2 * batch}], ` : `[${batch}], `;
  throw kernelError(ctx, `mask [${dims}] must be ${forms}[${batch}, ${total}] or [${batch}, ${seq}, ${total}]`);
}

/** attention_bias [B or 1, N or 1, S, T] with broadcast strides. */
export function attentionBiasOf(
  ctx: KernelContextV1,
  t: HostTensor,
  shape: { batch: number; heads: number; seq: number; total: number },
): NonNullable<AttentionMasking['bias']> {
  const d = t.dims;
  const { batch, heads, seq, total } = shape;
  if (d.length !== 4 || (d[0] !== 1 && d[0] !== batch) || (d[1] !== 1 && d[1] !== heads) || d[2] !== seq || d[3] !== total)
    throw kernelError(ctx, `attention_bias must be [${batch} or 1, ${heads} or 1, ${seq}, ${total}], got [${d}]`);
  const plane = seq * total;
  return { data: readFloats(t), batchStride: d[0] === 1 ? 0 : (d[1] as number) * plane, headStride: d[1] === 1 ? 0 : plane };
}

/** Writes attention of every head into `out` as [B, S, N · Hv]. */
export function attend(p: AttentionHeads, masking: AttentionMasking, out: Float32Array | Float64Array): void {
  const { batch, heads, seq, total, past, headSize: H, vHeadSize: Hv } = p;
  const scores = new Float64Array(total);
  for (let b = 0; b < batch; b++)
    for (let n = 0; n < heads; n++) {
      const qBase = (b * heads + n) * seq * H;
      const kBase = (b * heads + n) * total * H;
      const vBase = (b * heads + n) * total * Hv;
      for (let s = 0; s < seq; s++) {
        const keys = masking.causal ? Math.min(total, past + s + 1) : total;
        let max = Number.NEGATIVE_INFINITY;
        for (let t = 0; t < keys; t++) {
          let dot = 0;
          for (let d = 0; d < H; d++) dot += (p.q[qBase + s * H + d] as number) * (p.k[kBase + t * H + d] as number);
          let x = dot * masking.scale;
          if (masking.keyMask) x += masking.keyMask[(b * seq + s) * total + t] as number;
          const bias = masking.bias;
          if (bias) x += bias.data[b * bias.batchStride + n * bias.headStride + s * total + t] as number;
          scores[t] = x;
          if (x > max) max = x;
        }
        let sum = 0;
        for (let t = 0; t < keys; t++) {
          const e = Math.exp((scores[t] as number) - max);
          scores[t] = e;
          sum += e;
        }
        const o = (b * seq + s) * heads * Hv + n * Hv;
        for (let d = 0; d < Hv; d++) {
          let acc = 0;
          for (let t = 0; t < keys; t++) acc += (scores[t] as number) * (p.v[vBase + t * Hv + d] as number);
          out[o + d] = acc / sum;
        }
      }
    }
}

/**
 * The masking of a node: scale (1/sqrt(head size) unless given), unidirectional, the key mask at
 * input `maskInput` and attention_bias at `biasInput`.
 */
export function maskingOf(
  ctx: KernelContextV1,
  shape: { batch: number; heads: number; seq: number; total: number; headSize: number },
  inputs: { maskInput: number; biasInput: number; allowStart: boolean },
): AttentionMasking {
  const scale = ctx.attrs.float('scale', 0);
  const filter = ctx.attrs.float('mask_filter_value', -10000);
  const keyMask = hasInput(ctx, inputs.maskInput)
    ? keyMaskOf(ctx, requireTensor(ctx, inputs.maskInput), shape, { filter, allowStart: inputs.allowStart })
    : undefined;
  const bias = hasInput(ctx, inputs.biasInput) ? attentionBiasOf(ctx, requireTensor(ctx, inputs.biasInput), shape) : undefined;
  return {
    scale: scale !== 0 ? scale : 1 / Math.sqrt(shape.headSize),
    causal: ctx.attrs.int('unidirectional', 0) !== 0,
    ...(keyMask ? { keyMask } : {}),
    ...(bias ? { bias } : {}),
  };
}
