/**
 * com.microsoft MultiHeadAttention reference kernel: Q/K/V in BSD (with an optional packed bias and
 * past_key/past_value), K/V already per head (BNSH), packed KV [B, L, N, 2, H] or packed QKV
 * [B, S, N, 3, H], gathered into BNSH with the past prepended, then the shared attention step.
 */
import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';
import { attend, maskingOf } from './contrib-attention-core.js';

/** Copies a [B, L, N, ·] view (element (b, l, n, d) at `at(b, l, n) + d`) into BNSH after `past` rows. */
function gather(
  target: Float64Array,
  shape: { batch: number; heads: number; rows: number; total: number; past: number; size: number },
  source: ArrayLike<number>,
  at: (b: number, l: number, n: number) => number,
): void {
  const { batch, heads, rows, total, past, size } = shape;
  for (let b = 0; b < batch; b++)
    for (let n = 0; n < heads; n++)
      for (let l = 0; l < rows; l++) {
        const from = at(b, l, n);
        const to = ((b * heads + n) * total + past + l) * size;
        for (let d = 0; d < size; d++) target[to + d] = source[from + d] as number;
      }
}

/** past_key/past_value [B, N, P, size] into the first P rows of each head. */
function copyPast(target: Float64Array, past: HostTensor, shape: { batch: number; heads: number; total: number; size: number }): void {
  const p = past.dims[2] as number;
  const data = readFloats(past);
  for (let bn = 0; bn < shape.batch * shape.heads; bn++)
    for (let i = 0; i < p * shape.size; i++) target[bn * shape.total * shape.size + i] = data[bn * p * shape.size + i] as number;
}

function compute(ctx: KernelContextV1): void {
  const query = requireTensor(ctx, 0);
  const N = ctx.attrs.int('num_heads', 0);
  if (N <= 0) throw kernelError(ctx, 'num_heads must be positive');
  if (hasInput(ctx, 8) || hasInput(ctx, 9) || ctx.outputCount > 3)
    throw kernelError(ctx, 'past_sequence_length, cache_indirection and the qk output are not supported');
  const key = hasInput(ctx, 1) ? requireTensor(ctx, 1) : undefined;
  const value = hasInput(ctx, 2) ? requireTensor(ctx, 2) : undefined;
  const biasT = hasInput(ctx, 3) ? requireTensor(ctx, 3) : undefined;
  const pastK = hasInput(ctx, 6) ? requireTensor(ctx, 6) : undefined;
  const pastV = hasInput(ctx, 7) ? requireTensor(ctx, 7) : undefined;
  if (!pastK !== !pastV) throw kernelError(ctx, 'past_key and past_value go together');
  const [batch, seq] = query.dims as [number, number];
  const qs = readFloats(query);
  let H: number;
  let Hv: number;
  let L: number;
  let layout: 'bsd' | 'bnsh' | 'packed-kv' | 'packed-qkv';
  if (query.dims.length === 5) {
    if (key || value) throw kernelError(ctx, 'packed QKV takes no key or value');
    if (query.dims[2] !== N || query.dims[3] !== 3) throw kernelError(ctx, `packed QKV must be [B, S, ${N}, 3, H], got [${query.dims}]`);
    layout = 'packed-qkv';
    H = query.dims[4] as number;
    Hv = H;
    L = seq;
  } else if (query.dims.length === 3) {
    const D = query.dims[2] as number;
    if (D % N !== 0) throw kernelError(ctx, `query width ${D} is not a multiple of ${N} heads`);
    H = D / N;
    if (!key) throw kernelError(ctx, 'key is required unless query is packed QKV');
    if (key.dims.length === 5) {
      if (value) throw kernelError(ctx, 'packed KV takes no value');
      if (key.dims[0] !== batch || key.dims[2] !== N || key.dims[3] !== 2 || key.dims[4] !== H)
        throw kernelError(ctx, `packed KV must be [${batch}, L, ${N}, 2, ${H}], got [${key.dims}]`);
      layout = 'packed-kv';
      L = key.dims[1] as number;
      Hv = H;
    } else if (key.dims.length === 4) {
      if (value?.dims.length !== 4) throw kernelError(ctx, 'a BNSH key needs a BNSH value');
      if (
        key.dims[0] !== batch ||
        key.dims[1] !== N ||
        key.dims[3] !== H ||
        value.dims[0] !== batch ||
        value.dims[1] !== N ||
        value.dims[2] !== key.dims[2]
      )
        throw kernelError(
          ctx,
          `key and value must be [${batch}, ${N}, L, ${H}] and [${batch}, ${N}, L, Hv], got [${key.dims}] and [${value.dims}]`,
        );
      layout = 'bnsh';
      L = key.dims[2] as number;
      Hv = value.dims[3] as number;
    } else if (key.dims.length === 3) {
      if (value?.dims.length !== 3) throw kernelError(ctx, 'a 3-D key needs a 3-D value');
      if (
        key.dims[0] !== batch ||
        key.dims[2] !== D ||
        value.dims[0] !== batch ||
        value.dims[1] !== key.dims[1] ||
        (value.dims[2] as number) % N !== 0
      )
        throw kernelError(ctx, `key and value must be [${batch}, L, ${D}] and [${batch}, L, Dv], got [${key.dims}] and [${value.dims}]`);
      layout = 'bsd';
      L = key.dims[1] as number;
      Hv = (value.dims[2] as number) / N;
    } else throw kernelError(ctx, `key must be 3-D, 4-D or 5-D, got [${key.dims}]`);
  } else throw kernelError(ctx, `query must be 3-D or 5-D, got [${query.dims}]`);
  if (biasT && layout !== 'bsd') throw kernelError(ctx, 'bias is supported with 3-D query, key and value only');
  if (pastK && layout === 'bnsh') throw kernelError(ctx, 'past_key/past_value cannot extend a BNSH key and value');
  const past = pastK ? (pastK.dims[2] as number) : 0;
  if (pastK && pastV) {
    if (pastK.dims.join() !== [batch, N, past, H].join() || pastV.dims.join() !== [batch, N, past, Hv].join())
      throw kernelError(
        ctx,
        `past_key and past_value must be [${batch}, ${N}, P, ${H}] and [${batch}, ${N}, P, ${Hv}], got [${pastK.dims}] and [${pastV.dims}]`,
      );
  }
  const T = past + L;
  const bias = biasT ? readFloats(biasT) : undefined;
  const D = N * H;
  if (bias && bias.length !== 2 * D + N * Hv) throw kernelError(ctx, `bias must hold ${2 * D + N * Hv} values`);
  const q = new Float64Array(batch * N * seq * H);
  const k = new Float64Array(batch * N * T * H);
  const v = new Float64Array(batch * N * T * Hv);
  if (pastK && pastV) {
    copyPast(k, pastK, { batch, heads: N, total: T, size: H });
    copyPast(v, pastV, { batch, heads: N, total: T, size: Hv });
  }
  const qShape = { batch, heads: N, rows: seq, total: seq, past: 0, size: H };
  const kShape = { batch, heads: N, rows: L, total: T, past, size: H };
  const vShape = { ...kShape, size: Hv };
  if (layout === 'packed-qkv') {
    const at = (part: number) => (b: number, l: number, n: number) => (((b * seq + l) * N + n) * 3 + part) * H;
    gather(q, qShape, qs, at(0));
    gather(k, kShape, qs, at(1));
    gather(v, vShape, qs, at(2));
  } else {
    gather(q, qShape, qs, (b, l, n) => (b * seq + l) * D + n * H);
    const ks = readFloats(key as HostTensor);
    if (layout === 'packed-kv') {
      const at = (part: number) => (b: number, l: number, n: number) => (((b * L + l) * N + n) * 2 + part) * H;
      gather(k, kShape, ks, at(0));
      gather(v, vShape, ks, at(1));
    } else if (layout === 'bnsh') {
      gather(k, kShape, ks, (b, l, n) => ((b * N + n) * L + l) * H);
      gather(v, vShape, readFloats(value as HostTensor), (b, l, n) => ((b * N + n) * L + l) * Hv);
    } else {
      gather(k, kShape, ks, (b, l, n) => (b * L + l) * D + n * H);
      gather(v, vShape, readFloats(value as HostTensor), (b, l, n) => (b * L + l) * N * Hv + n * Hv);
    }
  }
  if (bias) {
    for (let bn = 0; bn < batch * N; bn++) {
      const n = bn % N;
      for (let s = 0; s < seq; s++) for (let d = 0; d < H; d++) q[(bn * seq + s) * H + d] += bias[n * H + d] as number;
      for (let l = past; l < T; l++) {
        for (let d = 0; d < H; d++) k[(bn * T + l) * H + d] += bias[D + n * H + d] as number;
        for (let d = 0; d < Hv; d++) v[(bn * T + l) * Hv + d] += bias[2 * D + n * Hv + d] as number;
      }
    }
  }
  const masking = maskingOf(ctx, { batch, heads: N, seq, total: T, headSize: H }, { maskInput: 4, biasInput: 5, allowStart: false });
  const out = floatOutput(ctx, 0, [batch, seq, N * Hv], query.type);
  attend({ batch, heads: N, seq, total: T, past, headSize: H, vHeadSize: Hv, q, k, v }, masking, out.data);
  out.commit();
  for (const [index, data, size] of [
    [1, k, H],
    [2, v, Hv],
  ] as const) {
    if (ctx.outputCount <= index) continue;
    const present = floatOutput(ctx, index, [batch, N, T, size], query.type);
    present.data.set(data);
    present.commit();
  }
}

export const multiHeadAttentionKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'MultiHeadAttention', domain: 'com.microsoft', compute }),
];
