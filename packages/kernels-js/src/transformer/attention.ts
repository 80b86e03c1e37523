/**
 * ONNX Attention (opset 23/24): scaled dot-product attention over 3-D or 4-D Q/K/V with GQA/MQA,
 * KV cache (past/present), boolean or additive masks, causal masking, softcap and the optional
 * QK output. Scores for one query row are computed, masked and normalised in float64.
 */
import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { type FloatArray, attentionShapesProblem } from '@tsge/ops/kernel-support';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

/** A Q/K/V operand viewed as [batch, heads, seq, head]. */
interface HeadView {
  readonly data: FloatArray;
  readonly batch: number;
  readonly heads: number;
  readonly seq: number;
  readonly size: number;
  readonly threeD: boolean;
}

function viewHeads(ctx: KernelContextV1, t: HostTensor, heads3d: number, what: string): HeadView {
  const data = readFloats(t);
  if (t.dims.length === 4) {
    const [batch, heads, seq, size] = t.dims as [number, number, number, number];
    return { data, batch, heads, seq, size, threeD: false };
  }
  if (t.dims.length === 3) {
    const [batch, seq, hidden] = t.dims as [number, number, number];
    if (heads3d <= 0 || hidden % heads3d !== 0)
      throw kernelError(ctx, `${what} hidden size ${hidden} is not divisible by num_heads ${heads3d}`);
    return { data, batch, heads: heads3d, seq, size: hidden / heads3d, threeD: true };
  }
  throw kernelError(ctx, `${what} must be 3-D or 4-D, got [${t.dims}]`);
}

/** Flat offset of element (b, h, s, 0) in a head view. */
function rowOffset(v: HeadView, b: number, h: number, s: number): number {
  return v.threeD ? (b * v.seq + s) * v.heads * v.size + h * v.size : ((b * v.heads + h) * v.seq + s) * v.size;
}

/** K or V with past concatenated: [batch, heads, past + seq, size] as a dense array. */
function withPast(cur: HeadView, past: HostTensor | undefined): { data: FloatArray; seq: number; pastSeq: number } {
  const pastSeq = past ? (past.dims[2] as number) : 0;
  const pastData = past ? readFloats(past) : undefined;
  const total = pastSeq + cur.seq;
  const out = new Float64Array(cur.batch * cur.heads * total * cur.size);
  for (let b = 0; b < cur.batch; b++)
    for (let h = 0; h < cur.heads; h++) {
      const dst = (b * cur.heads + h) * total * cur.size;
      if (pastData) {
        const src = (b * cur.heads + h) * pastSeq * cur.size;
        for (let i = 0; i < pastSeq * cur.size; i++) out[dst + i] = pastData[src + i] as number;
      }
      for (let s = 0; s < cur.seq; s++) {
        const src = rowOffset(cur, b, h, s);
        const d = dst + (pastSeq + s) * cur.size;
        for (let i = 0; i < cur.size; i++) out[d + i] = cur.data[src + i] as number;
      }
    }
  return { data: out, seq: total, pastSeq };
}

/** Mask as an additive bias reader broadcast (numpy rules) to [batch, heads, q, total]. */
function maskReader(
  mask: HostTensor | undefined,
  batch: number,
  heads: number,
  q: number,
  total: number,
): ((b: number, h: number, i: number, j: number) => number) | undefined {
  if (!mask) return undefined;
  const dims = mask.dims;
  const rank = dims.length;
  const full = [batch, heads, q, total];
  const strides = [0, 0, 0, 0];
  let s = 1;
  for (let a = rank - 1; a >= 0; a--) {
    const axis = 4 - rank + a;
    const d = dims[a] as number;
    strides[axis] = d === 1 && axis !== 3 ? 0 : s;
    s *= d;
  }
  const lastLen = rank > 0 ? (dims[rank - 1] as number) : 1;
  const isBool = mask.type === 'bool';
  const values = isBool ? undefined : readFloats(mask);
  const bits = isBool ? (mask.data as Uint8Array) : undefined;
  const [sb, sh, si, sj] = strides as [number, number, number, number];
  const broadcastLast = lastLen === 1 && (full[3] as number) !== 1;
  return (b, h, i, j) => {
    // a mask shorter than the total sequence is padded with "masked"
    if (!broadcastLast && j >= lastLen) return Number.NEGATIVE_INFINITY;
    const idx = b * sb + h * sh + i * si + (broadcastLast ? 0 : j * sj);
    if (bits) return bits[idx] ? 0 : Number.NEGATIVE_INFINITY;
    return (values as FloatArray)[idx] as number;
  };
}

function runAttention(ctx: KernelContextV1): void {
  const qT = requireTensor(ctx, 0);
  const kT = requireTensor(ctx, 1);
  const vT = requireTensor(ctx, 2);
  const qHeads3d = ctx.attrs.int('q_num_heads', 0);
  const kvHeads3d = ctx.attrs.int('kv_num_heads', 0);
  const operand = (i: number) => (hasInput(ctx, i) ? requireTensor(ctx, i).dims : undefined);
  // the same rule as shape inference, on the run's dims (a dynamic model's shapes are known only now)
  const problem = attentionShapesProblem({
    q: qT.dims,
    k: kT.dims,
    v: vT.dims,
    mask: operand(3),
    pastKey: operand(4),
    pastValue: operand(5),
    qHeads3d,
    kvHeads3d,
  });
  if (problem) throw kernelError(ctx, problem);
  const q = viewHeads(ctx, qT, qHeads3d, 'Q');
  const k = viewHeads(ctx, kT, kvHeads3d, 'K');
  const v = viewHeads(ctx, vT, kvHeads3d, 'V');
  const pastKey = hasInput(ctx, 4) ? requireTensor(ctx, 4) : undefined;
  const pastValue = hasInput(ctx, 5) ? requireTensor(ctx, 5) : undefined;
  const keys = withPast(k, pastKey);
  const vals = withPast(v, pastValue);
  const total = keys.seq;
  const batch = q.batch;
  const nonpad = hasInput(ctx, 6) ? readFloats(requireTensor(ctx, 6)) : undefined;
  const mask = maskReader(hasInput(ctx, 3) ? requireTensor(ctx, 3) : undefined, batch, q.heads, q.seq, total);
  const scale = ctx.attrs.float('scale', 1 / Math.sqrt(q.size));
  const rootScale = Math.sqrt(scale);
  const softcap = ctx.attrs.float('softcap', 0);
  const causal = ctx.attrs.int('is_causal', 0) !== 0;
  const mode = ctx.attrs.int('qk_matmul_output_mode', 0);
  const reps = q.heads / k.heads;

  const yDims = q.threeD ? [batch, q.seq, q.heads * v.size] : [batch, q.heads, q.seq, v.size];
  const y = floatOutput(ctx, 0, yDims, qT.type);
  const presentDims = (cur: HeadView) => [batch, cur.heads, total, cur.size];
  if (ctx.outputCount > 1) {
    const pk = floatOutput(ctx, 1, presentDims(k), kT.type);
    pk.data.set(keys.data);
    pk.commit();
  }
  if (ctx.outputCount > 2) {
    const pv = floatOutput(ctx, 2, presentDims(v), vT.type);
    pv.data.set(vals.data);
    pv.commit();
  }
  const qkOut = ctx.outputCount > 3 ? floatOutput(ctx, 3, [batch, q.heads, q.seq, total], qT.type) : undefined;
  const scores = new Float64Array(total);
  const raw = new Float64Array(total);
  for (let b = 0; b < batch; b++) {
    const offset = pastKey === undefined && nonpad ? (nonpad[b] as number) - q.seq : keys.pastSeq;
    const valid = nonpad ? (nonpad[b] as number) : total;
    for (let h = 0; h < q.heads; h++) {
      const kvh = Math.floor(h / reps);
      const kBase = (b * k.heads + kvh) * total * k.size;
      const vBase = (b * v.heads + kvh) * total * v.size;
      for (let i = 0; i < q.seq; i++) {
        const qo = rowOffset(q, b, h, i);
        for (let j = 0; j < total; j++) {
          let dot = 0;
          const ko = kBase + j * k.size;
          for (let d = 0; d < q.size; d++) dot += (q.data[qo + d] as number) * rootScale * ((keys.data[ko + d] as number) * rootScale);
          if (softcap > 0) dot = softcap * Math.tanh(dot / softcap);
          raw[j] = dot;
          let bias = mask ? mask(b, h, i, j) : 0;
          if (causal && j > i + offset) bias = Number.NEGATIVE_INFINITY;
          if (j >= valid) bias = Number.NEGATIVE_INFINITY;
          scores[j] = dot + bias;
        }
        let max = Number.NEGATIVE_INFINITY;
        for (let j = 0; j < total; j++) if ((scores[j] as number) > max) max = scores[j] as number;
        let sum = 0;
        for (let j = 0; j < total; j++) {
          const e = Math.exp((scores[j] as number) - max);
          sum += e;
          if (mode === 2 && qkOut) qkOut.data[((b * q.heads + h) * q.seq + i) * total + j] = scores[j] as number;
          scores[j] = e;
        }
        for (let j = 0; j < total; j++) scores[j] = (scores[j] as number) / sum;
        if (qkOut && mode !== 2) {
          const src = mode === 3 ? scores : raw;
          qkOut.data.set(src, ((b * q.heads + h) * q.seq + i) * total);
        }
        const yo = q.threeD ? (b * q.seq + i) * q.heads * v.size + h * v.size : ((b * q.heads + h) * q.seq + i) * v.size;
        for (let d = 0; d < v.size; d++) {
          let acc = 0;
          for (let j = 0; j < total; j++) acc += (scores[j] as number) * (vals.data[vBase + j * v.size + d] as number);
          y.data[yo + d] = acc;
        }
      }
    }
  }
  y.commit();
  qkOut?.commit();
}

export const attentionKernels: readonly KernelV1[] = [defineKernel({ opType: 'Attention', compute: runAttention })];
