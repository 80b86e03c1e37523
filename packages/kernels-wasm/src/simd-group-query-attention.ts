import type { HostTensor, KernelContextV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { defineKernel, readGroupQueryAttention, rotate, sameStorage } from '@tsge/kernels-js/kernel-support';
import { attentionRows } from './attention-module.js';
import { inMemory } from './simd-matmul.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, runTiles, tileFunction } from './tiles.js';

/** Workspace bytes the attention kernel keeps for one block of scores; the staged query rows follow. */
const SCORES_BYTES = 256;

/**
 * com.microsoft GroupQueryAttention with a float32 KV cache in device memory. The new key and value
 * rows (rotated) are written into the present cache — in place when present is bound to past
 * (past_present_share_buffer), else after the past rows, the rest zeroed — and the rotated queries
 * into the output; then tiles of query rows of one (batch, head) run the streaming-softmax SIMD
 * kernel over the cache where it is, each staging its query rows in its thread's workspace first
 * (the kernel accumulates into the output rows). Softcap, head sinks, smooth softmax, a local window,
 * a float16/bfloat16 cache or host memory go to the reference kernel.
 */
export function simdGroupQueryAttentionKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'GroupQueryAttention',
    domain: 'com.microsoft',
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const workspace = memory ? threadWorkspace(memory) : undefined;
      if (!memory || !workspace || !attentionRows(memory) || ctx.outputCount !== 3) return reference.compute(ctx);
      const g = readGroupQueryAttention(ctx);
      const { batch, seq, numHeads, kvHeads, H, P, T, firstPrompt, seqlens, rotary, positionIds } = g;
      const simple = g.q.type === 'float32' && g.cacheType === 'float32' && g.softcap === 0 && !g.sink && !g.smooth && g.window <= 0;
      const rowsPerTile = Math.floor((workspace.bytes - SCORES_BYTES) / (H * 4));
      if (!simple || rowsPerTile < 1) return reference.compute(ctx);
      const pastLens = seqlens.map((s) => (firstPrompt ? 0 : s + 1 - seq));
      // the reference reports a seqlens_k that does not fit, with its message
      if (pastLens.some((p) => p < 0 || p > P || p + seq > T)) return reference.compute(ctx);
      const presentDims = [batch, kvHeads, T, H];
      const presentK = ctx.output(1, presentDims, 'float32');
      const presentV = ctx.output(2, presentDims, 'float32');
      const y = ctx.output(0, [batch, seq, numHeads * H], 'float32');
      const inputs = [g.q, ...[1, 2, 3, 4].flatMap((i) => (ctx.tensor(i) ? [ctx.tensor(i) as HostTensor] : []))];
      if (!inMemory(memory, presentK, presentV, y, ...inputs)) return reference.compute(ctx);
      const K = presentK.data as Float32Array;
      const V = presentV.data as Float32Array;
      const shared = g.pastK && g.pastV && sameStorage(presentK, g.pastK) && sameStorage(presentV, g.pastV);
      if (!shared) {
        const pk = g.pastK?.data as Float32Array | undefined;
        const pv = g.pastV?.data as Float32Array | undefined;
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
      const Y = y.data as Float32Array;
      const qWidth = g.packed ? g.width : numHeads * H;
      for (let b = 0; b < batch; b++)
        for (let s = 0; s < seq; s++) {
          const pos = positionIds ? (positionIds[b * seq + s] as number) : (pastLens[b] as number) + s;
          const row = (b * seq + s) * g.kStride;
          for (let h = 0; h < kvHeads; h++) {
            for (let d = 0; d < H; d++) head[d] = g.ks[row + g.kOff + h * H + d] as number;
            if (rotary) rotate(head, rotary, pos, ctx);
            const at = ((b * kvHeads + h) * T + (pastLens[b] as number) + s) * H;
            K.set(head, at);
            for (let d = 0; d < H; d++) V[at + d] = g.vs[row + g.vOff + h * H + d] as number;
          }
          const qRow = (b * seq + s) * qWidth;
          for (let n = 0; n < numHeads; n++) {
            for (let d = 0; d < H; d++) head[d] = g.qs[qRow + n * H + d] as number;
            if (rotary) rotate(head, rotary, pos, ctx);
            Y.set(head, (b * seq + s) * numHeads * H + n * H);
          }
        }
      const threads = ctx.parallel?.threads ?? 1;
      // about four tiles a thread: whole heads when there are enough, else row ranges of each
      const perHead = Math.min(seq, Math.max(1, Math.ceil((threads > 1 ? threads * 4 : 1) / (batch * numHeads))));
      const rows = Math.min(rowsPerTile, Math.ceil(seq / perHead));
      const group = numHeads / kvHeads;
      const yStride = numHeads * H * 4;
      const scale = g.scale;
      const tiles: number[][] = [];
      for (let b = 0; b < batch; b++)
        for (let n = 0; n < numHeads; n++) {
          const kv = (K.byteOffset as number) + (b * kvHeads + Math.floor(n / group)) * T * H * 4;
          const vv = V.byteOffset + (b * kvHeads + Math.floor(n / group)) * T * H * 4;
          const pastLen = pastLens[b] as number;
          for (let r0 = 0; r0 < seq; r0 += rows)
            tiles.push([
              Y.byteOffset + (b * seq + r0) * yStride + n * H * 4,
              Math.min(rows, seq - r0),
              kv,
              vv,
              pastLen + seq,
              H,
              scale,
              yStride,
              pastLen + r0,
            ]);
        }
      runTiles(memory, ctx.parallel, gqaRowsTile, tiles);
    },
  });
}

/**
 * Tile: `rows` query rows of one head, read from the output (where the kernel put them rotated) into
 * this thread's workspace, then attention over `keys` cache rows, causal from `causal`, into the output.
 */
export const gqaRowsTile = tileFunction('wasm.gqaRows', (memory: LinearMemory, t: readonly number[]) => {
  const [y, rows, k, v, keys, H, scale, yStride, causal] = t as NumberTuple<9>;
  const run = attentionRows(memory);
  const workspace = threadWorkspace(memory);
  if (!run || !workspace) throw new Error('GroupQueryAttention tile needs WebAssembly SIMD and a bound thread workspace');
  const all = new Float32Array(memory.buffer);
  const staged = workspace.offset + SCORES_BYTES;
  for (let r = 0; r < rows; r++) all.copyWithin(staged / 4 + r * H, (y + r * yStride) / 4, (y + r * yStride) / 4 + H);
  run(staged, k, v, -1, y, workspace.offset, rows, keys, H, H, scale, H * 4, H * 4, H * 4, yStride, 0, causal);
});
