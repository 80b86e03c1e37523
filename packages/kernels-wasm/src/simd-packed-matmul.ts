import { type KernelContextV1, type KernelV1, type LinearMemory, TSGE_DOMAIN } from '@tsge/metadef';
import { defineKernel, packedMatMulEpilogue, packedMatMulShape } from '@tsge/kernels-js/kernel-support';
import { PACKED_MATMUL, PACKED_MATMUL_PANEL } from '@tsge/ops/kernel-support';
import { gemmPrepackedTile, packedGemmTiles } from './gemm-packed-tiles.js';
import { GEMV_MAX_ROWS } from './gemv-tiles.js';
import { simdKernels } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';
import { threadWorkspace } from './thread-workspace.js';
import { matmulEpilogueTail, tileEpilogue } from './tile-epilogue.js';
import { type NumberTuple, runTiles, tileFunction } from './tiles.js';

const P = PACKED_MATMUL_PANEL;

const GEMV_PANELS = 'simd.gemvPanels';
/**
 * Tile: panels [q0, q1) of Y[m×n] = A[m×k]·B_packed (byte addresses and strides). Full panels run in
 * WebAssembly; a last panel with fewer than 8 columns of Y is summed in JS (storing 8 lanes would
 * write past the row).
 */
export const gemvPanelsTile = tileFunction(GEMV_PANELS, (memory, t) => {
  const [a, lda, b, panelBytes, y, ldy, m, k, q0, q1, n] = t as NumberTuple<11>;
  const kernels = simdKernels(memory);
  if (!kernels) throw new Error(`${GEMV_PANELS} tile without WebAssembly SIMD`);
  const full = Math.min(q1, Math.floor(n / P));
  if (full > q0) kernels.gemvPanels(a, lda, b + q0 * panelBytes, panelBytes, y + q0 * P * 4, ldy, m, k, full - q0);
  if (full < q1) lastPanel(memory, t);
  // a generated epilogue over the tile's columns of every row
  tileEpilogue(memory, t, 11)?.run(0, 0, m, q0 * P, Math.min(n, q1 * P));
});

/** The tile's last panel when it has fewer than 8 columns of Y, in JS. */
function lastPanel(memory: LinearMemory, t: readonly number[]): void {
  const [a, lda, b, panelBytes, y, ldy, m, k, , , n] = t as NumberTuple<11>;
  const full = Math.floor(n / P);
  const all = new Float32Array(memory.buffer);
  const panel = (b + full * panelBytes) / 4;
  for (let i = 0; i < m; i++)
    for (let j = full * P; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (all[(a + i * lda) / 4 + p] as number) * (all[panel + p * P + (j % P)] as number);
      all[(y + i * ldy) / 4 + j] = s;
    }
}

/** Panel ranges of a GEMV, four per thread (a slowed thread leaves its later ones to the others), ≥ 256 K multiply-adds each. */
function gemvPanelTiles(m: number, n: number, k: number, a: number, b: number, y: number, threads: number): number[][] {
  const panels = Math.ceil(n / P);
  let wanted = Math.max(1, Math.min(threads > 1 ? 4 * threads : 1, Math.floor((n * m * k) / (1 << 18)), panels));
  // a whole number of tiles a thread: 3 tiles on 2 threads finish when one thread has run 2 of them
  if (wanted > threads) wanted -= wanted % threads;
  const size = Math.ceil(panels / wanted);
  const tiles: number[][] = [];
  for (let q0 = 0; q0 < panels; q0 += size) tiles.push([a, k * 4, b, k * P * 4, y, n * 4, m, k, q0, Math.min(panels, q0 + size), n]);
  return tiles;
}

/**
 * tsge::PackedMatMul on device memory: up to GEMV_MAX_ROWS rows of A (a decode step) stream each
 * panel once through `gemvPanels`; more rows run the blocked GEMM straight on the packed panels.
 * Bias and activation follow in place. Host memory or no workspace: the reference kernel.
 */
export function simdPackedMatMulKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: PACKED_MATMUL,
    domain: TSGE_DOMAIN,
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const { a, b, rows, n, k, dims } = packedMatMulShape(ctx);
      if (!memory || !simdKernels(memory) || !inMemory(memory, a, b)) return reference.compute(ctx);
      if (rows > GEMV_MAX_ROWS && !threadWorkspace(memory)) return reference.compute(ctx);
      const y = ctx.output(0, dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const Y = y.data as Float32Array;
      const A = (a.data as Float32Array).byteOffset;
      const B = (b.data as Float32Array).byteOffset;
      const threads = ctx.parallel?.threads ?? 1;
      // a generated epilogue runs in the tiles when it can (then nothing is left for after them)
      const tail = matmulEpilogueTail(ctx, Y, dims);
      const withTail = (tiles: number[][]) => (tail ? tiles.map((t) => [...t, ...tail]) : tiles);
      if (rows > 0) {
        if (rows <= GEMV_MAX_ROWS)
          runTiles(memory, ctx.parallel, gemvPanelsTile, withTail(gemvPanelTiles(rows, n, k, A, B, Y.byteOffset, threads)));
        else {
          const tiles = packedGemmTiles(rows, n, k, { byte: A, ld: k }, { byte: B, ld: k * P * 4 }, { byte: Y.byteOffset, ld: n }, threads);
          runTiles(memory, ctx.parallel, gemmPrepackedTile, withTail(tiles));
        }
      }
      if (!tail) packedMatMulEpilogue(ctx, Y, dims);
    },
  });
}
