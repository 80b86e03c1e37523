/**
 * GroupQueryAttention over a KV cache whose present outputs share the past's buffers
 * (onnxruntime-genai's past_present_share_buffer): only the new rows are written, at
 * seqlens_k + 1 - sequence, and attention reads the cache where it is with an online softmax, so a
 * step allocates nothing proportional to the context (scratch is one head wide). A float16 or
 * bfloat16 cache is encoded as its rows are written and decoded a row at a time as they are read.
 */
import { type HostTensor, type KernelContextV1, bfloat16ToNumber, float16ToNumber, numberToBfloat16, numberToFloat16 } from '@tsge/metadef';
import { kernelError } from '../common/kernel-inputs.js';
import type { FloatOutput } from '../common/nn-float-io.js';

export interface Rotary {
  cos: ArrayLike<number>;
  sin: ArrayLike<number>;
  half: number;
  maxPos: number;
  interleaved: boolean;
}

/** Rotates the first 2*half features of one head in place at position pos. */
export function rotate(x: Float64Array, r: Rotary, pos: number, ctx: KernelContextV1): void {
  if (pos < 0 || pos >= r.maxPos) throw kernelError(ctx, `position ${pos} is outside cos_cache (${r.maxPos} rows)`);
  for (let j = 0; j < r.half; j++) {
    const c = r.cos[pos * r.half + j] as number;
    const s = r.sin[pos * r.half + j] as number;
    const a = r.interleaved ? 2 * j : j;
    const b = r.interleaved ? 2 * j + 1 : j + r.half;
    const x0 = x[a] as number;
    const x1 = x[b] as number;
    x[a] = x0 * c - x1 * s;
    x[b] = x1 * c + x0 * s;
  }
}

/** True when two tensors are the same memory (an output bound to an input's buffer). */
export function sameStorage(a: HostTensor, b: HostTensor): boolean {
  if (a.data === b.data) return true;
  const x = a.data;
  const y = b.data;
  return (
    ArrayBuffer.isView(x) &&
    ArrayBuffer.isView(y) &&
    x.buffer === y.buffer &&
    x.byteOffset === y.byteOffset &&
    x.byteLength === y.byteLength
  );
}

/** The layout of Q, K and V the kernel read (packed or separate). */
export interface GqaProblem {
  readonly batch: number;
  readonly seq: number;
  readonly numHeads: number;
  readonly kvHeads: number;
  /** Head size. */
  readonly H: number;
  /** Cache length (past = present). */
  readonly P: number;
  readonly total: number;
  readonly firstPrompt: boolean;
  readonly qs: ArrayLike<number>;
  readonly ks: ArrayLike<number>;
  readonly vs: ArrayLike<number>;
  readonly width: number;
  readonly packed: boolean;
  readonly kStride: number;
  readonly kOff: number;
  readonly vOff: number;
}

/** Rows of a shared cache buffer in its own dtype, moved through float64 scratch. */
export interface CacheRows {
  read(at: number, into: Float64Array): void;
  write(at: number, from: Float64Array): void;
}

let halfTable: Float32Array | undefined;
/** Every float16 bit pattern decoded once (256 KB), so reading a cache row is a table lookup. */
function halves(): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let i = 0; i < 65536; i++) halfTable[i] = float16ToNumber(i);
  }
  return halfTable;
}

/** The rows view of a cache tensor, or undefined for a dtype a cache cannot have. */
export function cacheRows(t: HostTensor): CacheRows | undefined {
  const data = t.data;
  if (data instanceof Float32Array || data instanceof Float64Array)
    return {
      read: (at, into) => {
        for (let d = 0; d < into.length; d++) into[d] = data[at + d] as number;
      },
      write: (at, from) => data.set(from, at),
    };
  if (!(data instanceof Uint16Array)) return undefined;
  if (t.type === 'float16') {
    const table = halves();
    return {
      read: (at, into) => {
        for (let d = 0; d < into.length; d++) into[d] = table[data[at + d] as number] as number;
      },
      write: (at, from) => {
        for (let d = 0; d < from.length; d++) data[at + d] = numberToFloat16(from[d] as number);
      },
    };
  }
  if (t.type === 'bfloat16')
    return {
      read: (at, into) => {
        for (let d = 0; d < into.length; d++) into[d] = bfloat16ToNumber(data[at + d] as number);
      },
      write: (at, from) => {
        for (let d = 0; d < from.length; d++) data[at + d] = numberToBfloat16(from[d] as number);
      },
    };
  return undefined;
}

export interface GqaInPlace {
  readonly seqlens: readonly number[];
  /** The shared cache buffers, [batch, kvHeads, P, H]. */
  readonly keys: CacheRows;
  readonly values: CacheRows;
  readonly out: FloatOutput;
  readonly rotary?: Rotary;
  readonly positionIds?: readonly number[];
  readonly sink?: ArrayLike<number>;
  readonly smooth: boolean;
  readonly scale: number;
  readonly softcap: number;
  readonly window: number;
}

export function attendInPlace(ctx: KernelContextV1, p: GqaProblem, a: GqaInPlace): void {
  const { batch, seq, numHeads, kvHeads, H, P, qs, ks, vs, kStride, kOff, vOff } = p;
  const { keys, values, rotary } = a;
  const head = new Float64Array(H);
  const acc = new Float64Array(H);
  const row = new Float64Array(H);
  const group = numHeads / kvHeads;
  const out = a.out.data;
  for (let b = 0; b < batch; b++) {
    const valid = (a.seqlens[b] as number) + 1;
    const pastLen = p.firstPrompt ? 0 : valid - seq;
    if (pastLen < 0 || pastLen + seq > P)
      throw kernelError(ctx, `seqlens_k[${b}] = ${a.seqlens[b]} does not fit sequence ${seq} in the shared cache of ${P} rows`);
    // the new keys (rotated) and values go to their rows of the cache
    for (let s = 0; s < seq; s++) {
      const pos = a.positionIds ? (a.positionIds[b * seq + s] as number) : pastLen + s;
      const from = (b * seq + s) * kStride;
      for (let h = 0; h < kvHeads; h++) {
        for (let d = 0; d < H; d++) head[d] = ks[from + kOff + h * H + d] as number;
        if (rotary) rotate(head, rotary, pos, ctx);
        const at = ((b * kvHeads + h) * P + pastLen + s) * H;
        keys.write(at, head);
        for (let d = 0; d < H; d++) head[d] = vs[from + vOff + h * H + d] as number;
        values.write(at, head);
      }
    }
    for (let s = 0; s < seq; s++) {
      const pos = a.positionIds ? (a.positionIds[b * seq + s] as number) : pastLen + s;
      const qRow = (b * seq + s) * (p.packed ? p.width : numHeads * H);
      const causal = pastLen + s + 1;
      // the window holds local_window_size keys, the current one included (onnxruntime 1.30)
      const lo = a.window > 0 && causal > a.window ? causal - a.window : 0;
      for (let n = 0; n < numHeads; n++) {
        for (let d = 0; d < H; d++) head[d] = qs[qRow + n * H + d] as number;
        if (rotary) rotate(head, rotary, pos, ctx);
        const kvBase = (b * kvHeads + Math.floor(n / group)) * P * H;
        // online softmax: running max, denominator and weighted sum of values
        let max = a.sink ? (a.sink[n] as number) : a.smooth ? 0 : Number.NEGATIVE_INFINITY;
        let sum = a.sink || a.smooth ? 1 : 0;
        acc.fill(0);
        for (let j = lo; j < causal; j++) {
          const kAt = kvBase + j * H;
          keys.read(kAt, row);
          let dot = 0;
          for (let d = 0; d < H; d++) dot += (head[d] as number) * (row[d] as number);
          let x = dot * a.scale;
          if (a.softcap > 0) x = a.softcap * Math.tanh(x / a.softcap);
          if (x > max) {
            const shrink = Math.exp(max - x);
            sum *= shrink;
            for (let d = 0; d < H; d++) acc[d] = (acc[d] as number) * shrink;
            max = x;
          }
          const e = Math.exp(x - max);
          sum += e;
          values.read(kAt, row);
          for (let d = 0; d < H; d++) acc[d] = (acc[d] as number) + e * (row[d] as number);
        }
        const o = ((b * seq + s) * numHeads + n) * H;
        for (let d = 0; d < H; d++) out[o + d] = (acc[d] as number) / sum;
      }
    }
  }
  a.out.commit();
}
