import { type HostTensor, type KernelContextV1, type KernelV1, type LinearMemory, numberToFloat16 } from '@tsge/metadef';
import { defineKernel, readGroupQueryAttention, rotate, sameStorage } from '@tsge/kernels-js/kernel-support';
import { type AttentionCache, attentionRows } from './attention-module.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, runTiles, tileFunction } from './tiles.js';
import { float32Of } from './memory-views.js';

/** Workspace bytes the attention kernel keeps for one block of scores; the staged query rows follow. */
const SCORES_BYTES = 256;

/** Multiply-adds (query rows × keys × head size, all heads) below which the tiles run on this thread. */
const MIN_SPLIT_WORK = 1 << 17;

/** The cache dtypes the kernel reads, by the code a tile carries. */
const CACHES: readonly AttentionCache[] = ['float32', 'float16'];

const isFloat = (t: string): t is AttentionCache => (CACHES as readonly string[]).includes(t);

/** Whether every tensor is a view of `memory` (float32, or the bit patterns of float16). */
const inMemory = (memory: LinearMemory, ...tensors: HostTensor[]): boolean =>
  tensors.every((t) => (t.data instanceof Float32Array || t.data instanceof Uint16Array) && t.data.buffer === memory.buffer);

/**
 * com.microsoft GroupQueryAttention with a float32 or float16 KV cache in device memory.
 * The new key and value rows (rotated) are written into the present cache — in place when present
 * is bound to past (past_present_share_buffer), else after the past rows, the rest zeroed; float16
 * rows are encoded as the reference encodes them (round to nearest even) — and the rotated queries
 * into float32 output rows: the output itself, or for a float16 output a float32 area of the
 * thread's workspace (the tiles then run on this thread, and the rows are encoded at the end).
 * Tiles of query rows of one (batch, head) run the streaming-softmax SIMD kernel over the cache
 * where it is, widening float16 keys and values to f32 lanes as they are read, each staging its
 * query rows in its thread's workspace first; a local window runs row by row over the window's
 * keys. Softcap, head sinks, smooth softmax, bfloat16 or host memory go to the reference kernel.
 */
export function simdGroupQueryAttentionKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'GroupQueryAttention',
    domain: 'com.microsoft',
    name: 'wasm-simd',
    dtypes: ['float32', 'float16'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const workspace = memory ? threadWorkspace(memory) : undefined;
      if (!memory || !workspace || !attentionRows(memory) || ctx.outputCount !== 3) return reference.compute(ctx);
      const g = readGroupQueryAttention(ctx);
      const { batch, seq, numHeads, kvHeads, H, P, T, firstPrompt, seqlens, rotary, positionIds } = g;
      const cache = g.cacheType;
      const qType = g.q.type;
      if (!isFloat(cache) || !isFloat(qType) || g.softcap !== 0 || g.sink || g.smooth) return reference.compute(ctx);
      // a float16 output: float32 rows in this thread's workspace before the staged queries
      const yCount = batch * seq * numHeads * H;
      const yArea = qType === 'float32' ? 0 : Math.ceil((yCount * 4) / 64) * 64;
      const rowsPerTile = Math.floor((workspace.bytes - SCORES_BYTES - yArea) / (H * 4));
      if (rowsPerTile < 1) return reference.compute(ctx);
      const pastLens = seqlens.map((s) => (firstPrompt ? 0 : s + 1 - seq));
      // the reference reports a seqlens_k that does not fit, with its message
      if (pastLens.some((p) => p < 0 || p > P || p + seq > T)) return reference.compute(ctx);
      const presentDims = [batch, kvHeads, T, H];
      const presentK = ctx.output(1, presentDims, cache);
      const presentV = ctx.output(2, presentDims, cache);
      const y = ctx.output(0, [batch, seq, numHeads * H], qType);
      const inputs = [g.q, ...[1, 2, 3, 4].flatMap((i) => (ctx.tensor(i) ? [ctx.tensor(i) as HostTensor] : []))];
      if (!inMemory(memory, presentK, presentV, y, ...inputs)) return reference.compute(ctx);
      const K = presentK.data as Float32Array | Uint16Array;
      const V = presentV.data as Float32Array | Uint16Array;
      const shared = g.pastK && g.pastV && sameStorage(presentK, g.pastK) && sameStorage(presentV, g.pastV);
      if (!shared) {
        // float16 past rows are copied as bits: the reference decodes and re-encodes them unchanged
        const pk = g.pastK?.data as Float32Array | Uint16Array | undefined;
        const pv = g.pastV?.data as Float32Array | Uint16Array | undefined;
        for (let b = 0; b < batch; b++)
          for (let h = 0; h < kvHeads; h++) {
            const at = (b * kvHeads + h) * T * H;
            const from = (b * kvHeads + h) * P * H;
            const keep = (pastLens[b] as number) * H;
            if (pk && pv && keep > 0) {
              K.set(pk.subarray(from, from + keep), at);
              V.set(pv.subarray(from, from + keep), at);
            }
            K.fill(0, at + keep, at + T * H);
            V.fill(0, at + keep, at + T * H);
          }
      }
      const head = new Float64Array(H);
      const Y = qType === 'float32' ? (y.data as Float32Array) : new Float32Array(memory.buffer, workspace.offset + SCORES_BYTES, yCount);
      const qWidth = g.packed ? g.width : numHeads * H;
      for (let b = 0; b < batch; b++)
        for (let s = 0; s < seq; s++) {
          const pos = positionIds ? (positionIds[b * seq + s] as number) : (pastLens[b] as number) + s;
          const row = (b * seq + s) * g.kStride;
          for (let h = 0; h < kvHeads; h++) {
            for (let d = 0; d < H; d++) head[d] = g.ks[row + g.kOff + h * H + d] as number;
            if (rotary) rotate(head, rotary, pos, ctx);
            const at = ((b * kvHeads + h) * T + (pastLens[b] as number) + s) * H;
            const from = row + g.vOff + h * H;
            if (K instanceof Float32Array && V instanceof Float32Array) {
              K.set(head, at);
              for (let d = 0; d < H; d++) V[at + d] = g.vs[from + d] as number;
            } else {
              for (let d = 0; d < H; d++) K[at + d] = numberToFloat16(head[d] as number);
              for (let d = 0; d < H; d++) V[at + d] = numberToFloat16(g.vs[from + d] as number);
            }
          }
          const qRow = (b * seq + s) * qWidth;
          for (let n = 0; n < numHeads; n++) {
            for (let d = 0; d < H; d++) head[d] = g.qs[qRow + n * H + d] as number;
            if (rotary) rotate(head, rotary, pos, ctx);
            Y.set(head, (b * seq + s) * numHeads * H + n * H);
          }
        }
      // a decode step over a short cache is a few µs of work: handing it to workers costs more
      const keys = Math.max(...pastLens) + seq;
      const worthSplitting = batch * numHeads * seq * keys * H >= MIN_SPLIT_WORK;
      const threads = qType === 'float32' && worthSplitting ? (ctx.parallel?.threads ?? 1) : 1;
      // about four tiles a thread: whole heads when there are enough, else row ranges of each
      const perHead = Math.min(seq, Math.max(1, Math.ceil((threads > 1 ? threads * 4 : 1) / (batch * numHeads))));
      const rows = Math.min(rowsPerTile, Math.ceil(seq / perHead));
      const group = numHeads / kvHeads;
      const yStride = numHeads * H * 4;
      const element = cache === 'float32' ? 4 : 2;
      const headBytes = T * H * element;
      const tiles: number[][] = [];
      for (let b = 0; b < batch; b++)
        for (let n = 0; n < numHeads; n++) {
          const kvHead = b * kvHeads + Math.floor(n / group);
          const pastLen = pastLens[b] as number;
          for (let r0 = 0; r0 < seq; r0 += rows)
            tiles.push([
              Y.byteOffset + (b * seq + r0) * yStride + n * H * 4,
              Math.min(rows, seq - r0),
              K.byteOffset + kvHead * headBytes,
              V.byteOffset + kvHead * headBytes,
              pastLen + seq,
              H,
              g.scale,
              yStride,
              pastLen + r0,
              SCORES_BYTES + yArea,
              g.window,
              CACHES.indexOf(cache),
            ]);
        }
      runTiles(memory, threads > 1 ? ctx.parallel : undefined, gqaRowsTile, tiles);
      if (qType !== 'float32') {
        const out = y.data as Uint16Array;
        for (let i = 0; i < yCount; i++) out[i] = numberToFloat16(Y[i] as number);
      }
    },
  });
}

/**
 * Tile: `rows` query rows of one head, read from the float32 output rows (where the kernel put them
 * rotated) into this thread's workspace at `stage` bytes in, then attention over `keys` cache rows
 * of dtype CACHES[`cache`], causal from `causal` (row r sees keys up to r + causal), the last
 * `window` of them when `window` > 0, into the output rows.
 */
export const gqaRowsTile = tileFunction('wasm.gqaRows', (memory: LinearMemory, t: readonly number[]) => {
  const [y, rows, k, v, keys, H, scale, yStride, causal, stage, window, cache] = t as NumberTuple<12>;
  const run = attentionRows(memory, CACHES[cache] ?? 'float32');
  const workspace = threadWorkspace(memory);
  if (!run || !workspace) throw new Error('GroupQueryAttention tile needs WebAssembly SIMD and a bound thread workspace');
  const all = float32Of(memory);
  const staged = workspace.offset + stage;
  for (let r = 0; r < rows; r++) all.copyWithin(staged / 4 + r * H, (y + r * yStride) / 4, (y + r * yStride) / 4 + H);
  const rowBytes = H * (cache === 0 ? 4 : 2);
  if (window <= 0) {
    run(staged, k, v, -1, y, workspace.offset, rows, keys, H, H, scale, H * 4, rowBytes, rowBytes, yStride, 0, causal);
    return;
  }
  // each row sees its own window of keys: the row's last `window`, its own key included
  for (let r = 0; r < rows; r++) {
    const seen = Math.min(keys, r + causal + 1);
    const lo = Math.max(0, seen - window);
    const kAt = k + lo * rowBytes;
    const vAt = v + lo * rowBytes;
    run(
      staged + r * H * 4,
      kAt,
      vAt,
      -1,
      y + r * yStride,
      workspace.offset,
      1,
      seen - lo,
      H,
      H,
      scale,
      H * 4,
      rowBytes,
      rowBytes,
      yStride,
      0,
      -1,
    );
  }
});
