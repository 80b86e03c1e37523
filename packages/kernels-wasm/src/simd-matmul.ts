import type { HostTensor, KernelContextV1, KernelV1, LinearMemory, TileFunctionV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import {
  ComputedMatMulPath,
  type ComputedMatMulPlan,
  type ComputedMatMulTask,
  chooseComputedMatMul,
  computedMatMulTask,
  gemmRowRanges,
  planComputedMatMulNode,
  recordedComputedMatMulPlan,
} from './computed-matmul-plan.js';
import { gemmPackedTile, gemmTileArgs } from './gemm-packed-tiles.js';
import { gemvColumnsTile, gemvTileArgs } from './gemv-tiles.js';
import { simdKernels } from './kernel-modules.js';
import { MATMUL_PLAN } from './matmul-plan.js';
import { float32Of } from './memory-views.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, runTiles, tileFunction } from './tiles.js';

/** Whether a float32 view lies in `memory` (so WebAssembly can address it by byte offset). */
export function inMemory(memory: LinearMemory, ...tensors: HostTensor[]): boolean {
  for (const t of tensors) if (!(t.data instanceof Float32Array) || t.data.buffer !== memory.buffer) return false;
  return true;
}

/**
 * C[M×N] = A[M×K]·B[K×N] with row strides; columns past the last multiple of 4 are finished in JS.
 * `accumulate` adds to C instead of overwriting it.
 */
export function simdGemm(
  memory: LinearMemory,
  shape: { m: number; n: number; k: number },
  a: { data: Float32Array; offset: number; ld: number },
  b: { data: Float32Array; offset: number; ld: number },
  c: { data: Float32Array; offset: number; ld: number },
  accumulate = false,
): boolean {
  const kernels = simdKernels(memory);
  if (!kernels) return false;
  const { m, n, k } = shape;
  kernels.gemm(
    m,
    n,
    k,
    a.data.byteOffset + a.offset * 4,
    a.ld,
    b.data.byteOffset + b.offset * 4,
    b.ld,
    c.data.byteOffset + c.offset * 4,
    c.ld,
    accumulate ? 1 : 0,
  );
  const done = n - (n % 4);
  if (done < n) {
    const A = a.data;
    const B = b.data;
    const C = c.data;
    for (let i = 0; i < m; i++) {
      for (let j = done; j < n; j++) {
        let s = 0;
        for (let p = 0; p < k; p++) s += (A[a.offset + i * a.ld + p] as number) * (B[b.offset + p * b.ld + j] as number);
        const at = c.offset + i * c.ld + j;
        C[at] = accumulate ? (C[at] as number) + s : s;
      }
    }
  }
  return true;
}

/** Matrix operand of a GEMM in device memory: a float32 view, an element offset and a row stride. */
export interface MatrixRef {
  readonly data: Float32Array;
  readonly offset: number;
  readonly ld: number;
}

const GEMM_ROWS = 'simd.gemmRows';
export const gemmRowsTile = tileFunction(GEMM_ROWS, (memory, t) => {
  const all = float32Of(memory);
  const [m, n, k, a, lda, b, ldb, c, ldc, acc] = t as NumberTuple<10>;
  simdGemm(
    memory,
    { m, n, k },
    { data: all, offset: a / 4, ld: lda },
    { data: all, offset: b / 4, ld: ldb },
    { data: all, offset: c / 4, ld: ldc },
    acc !== 0,
  );
});

/** `simd.gemmRows` arguments for blocks [m0, m1, n0, n1] of C = A·B. */
function gemmRowArgs(ranges: readonly (readonly number[])[], k: number, a: MatrixRef, b: MatrixRef, c: MatrixRef): number[][] {
  const byte = (r: MatrixRef, row: number, column = 0): number => r.data.byteOffset + (r.offset + row * r.ld + column) * 4;
  return ranges.map(([m0, m1, n0, n1]) => {
    const [r0, r1, c0, c1] = [m0, m1, n0, n1] as [number, number, number, number];
    return [r1 - r0, c1 - c0, k, byte(a, r0), a.ld, byte(b, 0, c0), b.ld, byte(c, r0, c0), c.ld, 0];
  });
}

/**
 * The GEMM tiles of C = A·B split by rows of A/C (multiples of 4); with too few rows for the
 * threads (a decode step's GEMV: one row) by columns of B/C (multiples of 16), as arguments of
 * `simd.gemmRows` (`gemmRowRanges`).
 */
export function gemmRowTiles(
  shape: { m: number; n: number; k: number },
  a: MatrixRef,
  b: MatrixRef,
  c: MatrixRef,
  threads: number,
): number[][] {
  return gemmRowArgs(gemmRowRanges(shape.m, shape.n, shape.k, threads), shape.k, a, b, c);
}

/** The tiles of `plan` for each of its GEMMs (batch `i` at element offsets i·rows·k, i·k·n, i·rows·n), as its path's tile arguments. */
function planTiles(plan: ComputedMatMulPlan, task: ComputedMatMulTask, a: Float32Array, b: Float32Array, y: Float32Array): number[][] {
  const { rows, n, k } = task;
  const tiles: number[][] = [];
  for (let i = 0; i < task.batches; i++) {
    const A = { data: a, offset: i * rows * k, ld: k };
    const B = { data: b, offset: i * k * n, ld: n };
    const Y = { data: y, offset: i * rows * n, ld: n };
    const at = (r: MatrixRef) => ({ byte: r.data.byteOffset + r.offset * 4, ld: r.ld });
    if (plan.path === ComputedMatMulPath.gemvColumns)
      tiles.push(
        ...gemvTileArgs(
          plan.tiles.map((t) => [t[2], t[3]] as [number, number]),
          rows,
          k,
          at(A),
          at(B),
          at(Y),
        ),
      );
    else if (plan.path === ComputedMatMulPath.gemmPacked) tiles.push(...gemmTileArgs(plan.tiles, k, at(A), at(B), at(Y)));
    else tiles.push(...gemmRowArgs(plan.tiles, k, A, B, Y));
  }
  return tiles;
}

/** The tile function of a plan's path (undefined for the reference). A function, not a table: this module sits in an import cycle with the plan's. */
function tileOf(path: number): TileFunctionV1 | undefined {
  if (path === ComputedMatMulPath.gemvColumns) return gemvColumnsTile;
  if (path === ComputedMatMulPath.gemmPacked) return gemmPackedTile;
  if (path === ComputedMatMulPath.gemmRows) return gemmRowsTile;
  return undefined;
}

const plans = new WeakMap<KernelContextV1, { ints: readonly number[] | undefined; key: string; plan: ComputedMatMulPlan }>();

/** The compiler's plan for static shapes, checked against this task once per context, else one made now. */
function matmulPlan(
  ctx: KernelContextV1,
  task: ComputedMatMulTask,
  threads: number,
  workspaceBytes: number | undefined,
): ComputedMatMulPlan {
  const recorded = ctx.attrs.has(MATMUL_PLAN) ? ctx.attrs.ints(MATMUL_PLAN) : undefined;
  const key = `${task.rows},${task.n},${task.k},${task.batches},${threads},${workspaceBytes}`;
  const known = plans.get(ctx);
  if (known && known.ints === recorded && known.key === key) return known.plan;
  const plan = recorded
    ? recordedComputedMatMulPlan(ctx.nodeName, recorded, task, threads, workspaceBytes)
    : chooseComputedMatMul(task, threads, workspaceBytes);
  plans.set(ctx, { ints: recorded, key, plan });
  return plan;
}

/**
 * MatMul on float32 in device memory: A[..., M, K] · B[K, N] as one GEMM over all batch rows, or
 * equal batch dims batch by batch — a decode step's GEMV, the packed GEMM or the row-major kernel,
 * as the compiler planned it for static shapes (`matmul_plan`, computed-matmul-plan.ts) or as
 * chosen on the first run. Other layouts (broadcast batches, 1-D operands, host memory) go to the
 * reference kernel.
 */
export function simdMatMulKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'MatMul',
    name: 'wasm-simd',
    dtypes: ['float32'],
    // splits its work into tiles through ctx.parallel
    parallel: true,
    plan: planComputedMatMulNode,
    compute: (ctx: KernelContextV1) => {
      const a = ctx.tensor(0);
      const b = ctx.tensor(1);
      const memory = ctx.memory;
      if (!a || !b || !memory || !inMemory(memory, a, b)) return reference.compute(ctx);
      const task = computedMatMulTask(a.dims, b.dims);
      if (!task) return reference.compute(ctx);
      const threads = ctx.parallel?.threads ?? 1;
      const plan = matmulPlan(ctx, task, threads, threadWorkspace(memory)?.bytes);
      const tile = tileOf(plan.path);
      if (!tile) return reference.compute(ctx);
      const aBatch = a.dims.slice(0, -2);
      const bBatch = b.dims.slice(0, -2);
      const outDims = [...(aBatch.length >= bBatch.length ? aBatch : bBatch), a.dims[a.dims.length - 2] as number, task.n];
      const y = ctx.output(0, outDims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      runTiles(memory, ctx.parallel, tile, planTiles(plan, task, a.data as Float32Array, b.data as Float32Array, y.data as Float32Array));
    },
  });
}
