/**
 * com.microsoft GroupQueryAttention reference kernel. Per batch the valid length is seqlens_k + 1;
 * on the first prompt (sequence length == total_sequence_length) the past is ignored, otherwise the
 * first (valid - sequence) past rows are kept and the new keys/values follow them. The present
 * buffer is max(total, past length) long, zero past the valid rows. Scores are accumulated in float64.
 */
import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, floatOutputOf, hasInput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';
import { type Rotary, attendInPlace, cacheRows, rotate, sameStorage } from './group-query-attention-in-place.js';

function intsOf(t: HostTensor): number[] {
  return Array.from(t.data as ArrayLike<number | bigint>, (v) => Number(v));
}

/** The operands and attributes of one GroupQueryAttention call, checked (shared by every kernel of the op). */
export function readGroupQueryAttention(ctx: KernelContextV1) {
  const q = requireTensor(ctx, 0);
  const numHeads = ctx.attrs.int('num_heads', 0);
  const kvHeads = ctx.attrs.int('kv_num_heads', 0);
  if (numHeads <= 0 || kvHeads <= 0 || numHeads % kvHeads !== 0)
    throw kernelError(ctx, 'num_heads must be a positive multiple of kv_num_heads');
  if (q.dims.length !== 3) throw kernelError(ctx, `query must be 3-D, got [${q.dims}]`);
  if (hasInput(ctx, 10)) throw kernelError(ctx, 'attention_bias is not supported');
  if (ctx.outputCount > 3 || ctx.attrs.int('qk_output', 0) !== 0) throw kernelError(ctx, 'output_qk is not supported');
  const [batch, seq, width] = q.dims as [number, number, number];
  const packed = !hasInput(ctx, 1);
  const parts = packed ? numHeads + 2 * kvHeads : numHeads;
  if (width % parts !== 0) throw kernelError(ctx, `query width ${width} is not a multiple of ${parts} heads`);
  const H = width / parts;
  const qs = readFloats(q);
  let ks: ArrayLike<number> = qs;
  let vs: ArrayLike<number> = qs;
  // row stride and column offset of Q, K, V inside their buffers
  let kStride = width;
  let kOff = numHeads * H;
  let vOff = (numHeads + kvHeads) * H;
  if (!packed) {
    const k = requireTensor(ctx, 1);
    const v = requireTensor(ctx, 2);
    const want = [batch, seq, kvHeads * H];
    if (k.dims.join() !== want.join() || v.dims.join() !== want.join())
      throw kernelError(ctx, `key and value must be [${want}], got [${k.dims}] and [${v.dims}]`);
    ks = readFloats(k);
    vs = readFloats(v);
    kStride = kvHeads * H;
    kOff = 0;
    vOff = 0;
  }
  const seqlens = intsOf(requireTensor(ctx, 5));
  const totalT = requireTensor(ctx, 6);
  if (totalT.data.length !== 1) throw kernelError(ctx, 'total_sequence_length must hold one value');
  const total = intsOf(totalT)[0] as number;
  if (seqlens.length !== batch) throw kernelError(ctx, `seqlens_k must have ${batch} values, got ${seqlens.length}`);
  const pastK = hasInput(ctx, 3) ? requireTensor(ctx, 3) : undefined;
  const pastV = hasInput(ctx, 4) ? requireTensor(ctx, 4) : undefined;
  if (!pastK !== !pastV) throw kernelError(ctx, 'past_key and past_value must both be given or both omitted');
  const P = pastK ? (pastK.dims[2] as number) : 0;
  if (pastK && pastV) {
    const want = [batch, kvHeads, P, H].join();
    if (pastK.dims.join() !== want || pastV.dims.join() !== want)
      throw kernelError(ctx, `past_key and past_value must be [${want}], got [${pastK.dims}] and [${pastV.dims}]`);
  }
  const firstPrompt = seq === total;
  const T = Math.max(total, P);
  const cacheType = pastK?.type ?? q.type;

  let rotary: Rotary | undefined;
  if (ctx.attrs.int('do_rotary', 0)) {
    if (!hasInput(ctx, 7) || !hasInput(ctx, 8)) throw kernelError(ctx, 'do_rotary needs cos_cache and sin_cache');
    const cos = requireTensor(ctx, 7);
    const sin = requireTensor(ctx, 8);
    if (cos.dims.length !== 2 || cos.dims.join() !== sin.dims.join())
      throw kernelError(ctx, 'cos_cache and sin_cache must both be [max_sequence, rotary_dim / 2]');
    const half = cos.dims[1] as number;
    if (2 * half > H) throw kernelError(ctx, `rotary dimension ${2 * half} exceeds head size ${H}`);
    rotary = {
      cos: readFloats(cos),
      sin: readFloats(sin),
      half,
      maxPos: cos.dims[0] as number,
      interleaved: ctx.attrs.int('rotary_interleaved', 0) !== 0,
    };
  }
  const positionIds = hasInput(ctx, 9) ? intsOf(requireTensor(ctx, 9)) : undefined;
  if (positionIds && positionIds.length !== batch * seq) throw kernelError(ctx, `position_ids must be [${batch}, ${seq}]`);
  const sink = hasInput(ctx, 11) ? readFloats(requireTensor(ctx, 11)) : undefined;
  if (sink && sink.length !== numHeads) throw kernelError(ctx, `head_sink must have ${numHeads} values`);
  const smooth = ctx.attrs.int('smooth_softmax', 0) !== 0;
  const scaleAttr = ctx.attrs.float('scale', 0);
  const scale = scaleAttr !== 0 ? scaleAttr : 1 / Math.sqrt(H);
  const softcap = ctx.attrs.float('softcap', 0);
  const window = ctx.attrs.int('local_window_size', -1);

  return {
    q,
    numHeads,
    kvHeads,
    batch,
    seq,
    width,
    packed,
    H,
    qs,
    ks,
    vs,
    kStride,
    kOff,
    vOff,
    seqlens,
    total,
    pastK,
    pastV,
    P,
    firstPrompt,
    T,
    cacheType,
    rotary,
    positionIds,
    sink,
    smooth,
    scale,
    softcap,
    window,
  };
}

export type GroupQueryAttentionCall = ReturnType<typeof readGroupQueryAttention>;

function compute(ctx: KernelContextV1): void {
  const {
    q,
    numHeads,
    kvHeads,
    batch,
    seq,
    width,
    packed,
    H,
    qs,
    ks,
    vs,
    kStride,
    kOff,
    vOff,
    seqlens,
    total,
    pastK,
    pastV,
    P,
    firstPrompt,
    T,
    cacheType,
    rotary,
    positionIds,
    sink,
    smooth,
    scale,
    softcap,
    window,
  } = readGroupQueryAttention(ctx);
  // the present outputs first: bound to the past's own buffers (past_present_share_buffer), the
  // step writes only the new rows and attends over the cache where it is, in the cache's dtype
  const presentDims = [batch, kvHeads, T, H];
  const outKT = ctx.outputCount > 1 ? ctx.output(1, presentDims, cacheType) : undefined;
  const outVT = ctx.outputCount > 2 ? ctx.output(2, presentDims, cacheType) : undefined;
  const sharedKeys = pastK && outKT && sameStorage(outKT, pastK) ? cacheRows(outKT) : undefined;
  const sharedValues = pastV && outVT && sameStorage(outVT, pastV) ? cacheRows(outVT) : undefined;
  if (sharedKeys && sharedValues) {
    const problem = { batch, seq, numHeads, kvHeads, H, P, total, firstPrompt, qs, ks, vs, width, packed, kStride, kOff, vOff };
    attendInPlace(ctx, problem, {
      seqlens,
      keys: sharedKeys,
      values: sharedValues,
      out: floatOutput(ctx, 0, [batch, seq, numHeads * H], q.type),
      ...(rotary ? { rotary } : {}),
      ...(positionIds ? { positionIds } : {}),
      ...(sink ? { sink } : {}),
      smooth,
      scale,
      softcap,
      window,
    });
    return;
  }
  // otherwise the present is assembled whole: the past decoded, the new rows appended
  const pk = pastK ? readFloats(pastK) : undefined;
  const pv = pastV ? readFloats(pastV) : undefined;
  const outK = outKT ? floatOutputOf(outKT) : undefined;
  const outV = outVT ? floatOutputOf(outVT) : undefined;
  const presentK = new Float64Array(batch * kvHeads * T * H);
  const presentV = new Float64Array(batch * kvHeads * T * H);
  const qRot = new Float64Array(batch * seq * numHeads * H);
  const pastLens: number[] = [];
  const head = new Float64Array(H);
  for (let b = 0; b < batch; b++) {
    const valid = (seqlens[b] as number) + 1;
    const pastLen = firstPrompt ? 0 : valid - seq;
    if (pastLen < 0 || pastLen > P || pastLen + seq > T)
      throw kernelError(ctx, `seqlens_k[${b}] = ${seqlens[b]} does not fit sequence ${seq} with past ${P} and total ${total}`);
    pastLens.push(pastLen);
    for (let h = 0; h < kvHeads; h++) {
      const base = (b * kvHeads + h) * T * H;
      const pastBase = (b * kvHeads + h) * P * H;
      for (let i = 0; i < pastLen * H; i++) {
        presentK[base + i] = (pk as ArrayLike<number>)[pastBase + i] as number;
        presentV[base + i] = (pv as ArrayLike<number>)[pastBase + i] as number;
      }
    }
    for (let s = 0; s < seq; s++) {
      const pos = positionIds ? (positionIds[b * seq + s] as number) : pastLen + s;
      const row = (b * seq + s) * kStride;
      for (let h = 0; h < kvHeads; h++) {
        for (let d = 0; d < H; d++) head[d] = ks[row + kOff + h * H + d] as number;
        if (rotary) rotate(head, rotary, pos, ctx);
        const at = ((b * kvHeads + h) * T + pastLen + s) * H;
        presentK.set(head, at);
        for (let d = 0; d < H; d++) presentV[at + d] = vs[row + vOff + h * H + d] as number;
      }
      const qRow = (b * seq + s) * (packed ? width : numHeads * H);
      for (let n = 0; n < numHeads; n++) {
        for (let d = 0; d < H; d++) head[d] = qs[qRow + n * H + d] as number;
        if (rotary) rotate(head, rotary, pos, ctx);
        qRot.set(head, ((b * seq + s) * numHeads + n) * H);
      }
    }
  }
  // the cache is stored in its own dtype (float16 rounds here) and attention reads the stored values
  const keys = cacheType === 'float32' || !outK ? presentK : roundTrip(outK, presentK);
  const values = cacheType === 'float32' || !outV ? presentV : roundTrip(outV, presentV);
  if (outK && cacheType === 'float32') outK.data.set(presentK);
  if (outV && cacheType === 'float32') outV.data.set(presentV);
  outK?.commit();
  outV?.commit();

  const out = floatOutput(ctx, 0, [batch, seq, numHeads * H], q.type);
  const scores = new Float64Array(T);
  const group = numHeads / kvHeads;
  for (let b = 0; b < batch; b++)
    for (let n = 0; n < numHeads; n++) {
      const kvBase = (b * kvHeads + Math.floor(n / group)) * T * H;
      for (let s = 0; s < seq; s++) {
        const causal = (pastLens[b] as number) + s + 1;
        // the window holds local_window_size keys, the current one included (onnxruntime 1.30)
        const lo = window > 0 && causal > window ? causal - window : 0;
        const qAt = ((b * seq + s) * numHeads + n) * H;
        let max = sink ? (sink[n] as number) : smooth ? 0 : Number.NEGATIVE_INFINITY;
        for (let j = lo; j < causal; j++) {
          let dot = 0;
          for (let d = 0; d < H; d++) dot += (qRot[qAt + d] as number) * (keys[kvBase + j * H + d] as number);
          let x = dot * scale;
          if (softcap > 0) x = softcap * Math.tanh(x / softcap);
          scores[j] = x;
          if (x > max) max = x;
        }
        let sum = sink ? Math.exp((sink[n] as number) - max) : smooth ? Math.exp(-max) : 0;
        for (let j = lo; j < causal; j++) {
          const e = Math.exp((scores[j] as number) - max);
          scores[j] = e;
          sum += e;
        }
        const o = ((b * seq + s) * numHeads + n) * H;
        for (let d = 0; d < H; d++) {
          let acc = 0;
          for (let j = lo; j < causal; j++) acc += (scores[j] as number) * (values[kvBase + j * H + d] as number);
          out.data[o + d] = acc / sum;
        }
      }
    }
  out.commit();
}

/** Writes values into a narrower output and returns them as stored (decoded back). */
function roundTrip(target: { data: Float32Array | Float64Array; commit(): void; tensor: HostTensor }, values: Float64Array): Float64Array {
  target.data.set(values);
  target.commit();
  return Float64Array.from(readFloats(target.tensor));
}

export const groupQueryAttentionKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'GroupQueryAttention', domain: 'com.microsoft', compute }),
];
