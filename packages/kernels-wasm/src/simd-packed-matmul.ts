import { type KernelContextV1, type KernelV1, type LinearMemory, TSGE_DOMAIN } from '@tsge/metadef';
import { defineKernel, packedMatMulEpilogue, packedMatMulShape } from '@tsge/kernels-js/kernel-support';
import { PACKED_MATMUL, PACKED_MATMUL_PANEL } from '@tsge/ops/kernel-support';
import { gemmPrepackedTile, gemmTileArgs } from './gemm-packed-tiles.js';
import { simdKernels } from './kernel-modules.js';
import { MATMUL_PLAN, MatMulPath, type MatMulPlan, chooseMatMul, planMatMulNode, recordedMatMulPlan } from './matmul-plan.js';
import { inMemory } from './simd-matmul.js';
import { threadWorkspace } from './thread-workspace.js';
import { matmulEpilogueTail, tileEpilogue } from './tile-epilogue.js';
import { type NumberTuple, runTiles, tileFunction } from './tiles.js';
import { float32Of } from './memory-views.js';

const P = PACKED_MATMUL_PANEL;

const GEMV_PANELS = 'simd.gemvPanels';
/**
 * Tile: panels [q0, q1) of Y[m×n] = A[m×k]·B_packed (byte addresses and strides). Full panels run in
 * WebAssembly; a last panel with fewer than 8 columns of Y is summed in JS (storing 8 lanes would
 * write past the row).
 */
export const gemvPanelsTile = tileFunction(GEMV_PANELS, (memory, t) => {
  const [a, lda, b, panelBytes, y, ldy, m, k, q0, q1, n] = t as number[] as NumberTuple<11>;
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
  const [a, lda, b, panelBytes, y, ldy, m, k, , , n] = t as number[] as NumberTuple<11>;
  const full = Math.floor(n / P);
  const all = float32Of(memory);
  const panel = (b + full * panelBytes) / 4;
  for (let i = 0; i < m; i++)
    for (let j = full * P; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (all[(a + i * lda) / 4 + p] as number) * (all[panel + p * P + (j % P)] as number);
      all[(y + i * ldy) / 4 + j] = s;
    }
}

const plans = new WeakMap<KernelContextV1, { ints: readonly number[] | undefined; key: string; plan: MatMulPlan }>();

/**
 * The compiler's plan for static shapes, checked against this task once per context (the check
 * walks every tile), else one made now.
 */
function matmulPlan(ctx: KernelContextV1, task: { rows: number; n: number; k: number }, threads: number, workspace: boolean): MatMulPlan {
  const ints = ctx.attrs.has(MATMUL_PLAN) ? ctx.attrs.ints(MATMUL_PLAN) : undefined;
  const key = `${task.rows},${task.n},${task.k},${threads},${workspace}`;
  const known = plans.get(ctx);
  if (known && known.ints === ints && known.key === key) return known.plan;
  const plan = ints
    ? recordedMatMulPlan(ctx.nodeName, ints, task, threads, workspace)
    : chooseMatMul(task.rows, task.n, task.k, threads, workspace);
  plans.set(ctx, { ints, key, plan });
  return plan;
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
    plan: planMatMulNode,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const { a, b, rows, n, k, dims } = packedMatMulShape(ctx);
      if (!memory || !simdKernels(memory) || !inMemory(memory, a, b)) return reference.compute(ctx);
      const workspace = threadWorkspace(memory) !== undefined;
      const threads = ctx.parallel?.threads ?? 1;
      const plan = matmulPlan(ctx, { rows, n, k }, threads, workspace);
      if (plan.path === MatMulPath.reference) return reference.compute(ctx);
      const y = ctx.output(0, dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const Y = y.data as Float32Array;
      const A = (a.data as Float32Array).byteOffset;
      const B = (b.data as Float32Array).byteOffset;
      // a generated epilogue runs in the tiles when it can (then nothing is left for after them)
      const tail = matmulEpilogueTail(ctx, Y, dims);
      const withTail = (tiles: number[][]) => (tail ? tiles.map((t) => [...t, ...tail]) : tiles);
      if (plan.path === MatMulPath.gemvPanels) {
        const args = [A, k * 4, B, k * P * 4, Y.byteOffset, n * 4, rows, k];
        // [0, rows, n0, n1] as panel ranges [q0, q1)
        runTiles(
          memory,
          ctx.parallel,
          gemvPanelsTile,
          withTail(plan.tiles.map((t) => [...args, (t[2] as number) / P, Math.ceil((t[3] as number) / P), n])),
        );
      } else {
        const tiles = gemmTileArgs(plan.tiles, k, { byte: A, ld: k }, { byte: B, ld: k * P * 4 }, { byte: Y.byteOffset, ld: n });
        runTiles(memory, ctx.parallel, gemmPrepackedTile, withTail(tiles));
      }
      if (!tail) packedMatMulEpilogue(ctx, Y, dims);
    },
  });
}
