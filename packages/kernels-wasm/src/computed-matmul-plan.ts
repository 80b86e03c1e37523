import { type AttrValue, type KernelPlanInputV1, TsgeError, attr } from '@tsge/metadef';
import { packedGemmFits, packedGemmRanges } from './gemm-packed-tiles.js';
import { gemvRanges, useGemv } from './gemv-tiles.js';
import { MATMUL_PLAN } from './matmul-plan.js';
import { type PlanLayout, decodePlan, encodePlan } from './plan-ints.js';
import { THREAD_WORKSPACE_BYTES } from './thread-workspace.js';
import { tileCoverage } from './tile-coverage.js';
import { splitRange } from './tiles.js';

/**
 * The plan of an ONNX MatMul on float32 whose B is not a packed constant (computed, or too small to
 * pack), in the PackedMatMul's attribute `matmul_plan` with its own version: [2, path, threads,
 * tile count, then per tile m0, m1, n0, n1] over one GEMM of `rows` rows — every batch's rows
 * over a 2-D B, one batch's when A and B have equal batch dims (each batch takes the same tiles).
 */
const LAYOUT: PlanLayout = { version: 2, head: 4, paths: 4, tileInts: 4 };

/** Implementations of such a MatMul, as recorded in the plan. */
export const ComputedMatMulPath = {
  /** The reference kernel (an empty product). */
  reference: 0,
  /** Up to 4 rows (a decode step): the column GEMV streams B in place (`simd.gemvColumns`). */
  gemvColumns: 1,
  /** 64 rows or more: blocks of B packed into the thread's workspace (`simd.gemmPacked`). */
  gemmPacked: 2,
  /** The row-major kernel reading B in place (`simd.gemmRows`). */
  gemmRows: 3,
} as const;

export interface ComputedMatMulTask {
  readonly rows: number;
  readonly n: number;
  readonly k: number;
  /** GEMMs of `rows` rows (equal batch dims), else 1. */
  readonly batches: number;
}

export interface ComputedMatMulPlan {
  readonly path: number;
  readonly threads: number;
  /** [m0, m1, n0, n1] each. */
  readonly tiles: readonly (readonly number[])[];
}

/**
 * The row-major kernel's blocks: rows of A/C (multiples of 4); with too few rows for the threads
 * (a GEMV of one row) columns of B/C (multiples of 16) instead, so every thread streams its share of B.
 */
export function gemmRowRanges(rows: number, n: number, k: number, threads: number): number[][] {
  const byRows = splitRange(rows, threads, 4, n * k);
  const columns = threads > 1 && byRows.length < threads ? splitRange(n, threads, 16, rows * k) : [];
  if (columns.length > byRows.length) return columns.map(([n0, n1]) => [0, rows, n0, n1]);
  return byRows.map(([m0, m1]) => [m0, m1, 0, n]);
}

function pathOf(task: ComputedMatMulTask, workspaceBytes: number | undefined): number {
  const { rows, n, k, batches } = task;
  if (rows === 0 || n === 0 || k === 0) return ComputedMatMulPath.reference;
  if (batches === 1 && useGemv(rows, n, k)) return ComputedMatMulPath.gemvColumns;
  return packedGemmFits(rows, n, k, workspaceBytes) ? ComputedMatMulPath.gemmPacked : ComputedMatMulPath.gemmRows;
}

function tilesOf(path: number, rows: number, n: number, k: number, threads: number): number[][] {
  if (path === ComputedMatMulPath.gemvColumns) return gemvRanges(rows, n, k, threads).map(([n0, n1]) => [0, rows, n0, n1]);
  if (path === ComputedMatMulPath.gemmPacked) return packedGemmRanges(rows, n, k, threads);
  if (path === ComputedMatMulPath.gemmRows) return gemmRowRanges(rows, n, k, threads);
  return [];
}

/** Chooses the implementation and tiles of the task's GEMMs. */
export function chooseComputedMatMul(task: ComputedMatMulTask, threads: number, workspaceBytes: number | undefined): ComputedMatMulPlan {
  const path = pathOf(task, workspaceBytes);
  return { path, threads, tiles: tilesOf(path, task.rows, task.n, task.k, threads) };
}

/** The task of A[..., M, K]·B[..., K, N] on the SIMD kernel, or undefined for layouts it leaves to the reference. */
export function computedMatMulTask(aDims: readonly number[], bDims: readonly number[]): ComputedMatMulTask | undefined {
  if (aDims.length < 2 || bDims.length < 2) return undefined;
  const [m, k] = aDims.slice(-2) as [number, number];
  const [kb, n] = bDims.slice(-2) as [number, number];
  const aBatch = aDims.slice(0, -2);
  const bBatch = bDims.slice(0, -2);
  const batch = aBatch.reduce((p, d) => p * d, 1);
  if (kb !== k) return undefined;
  if (bBatch.every((d) => d === 1)) return { rows: batch * m, n, k, batches: 1 };
  if (aBatch.length !== bBatch.length || aBatch.some((d, i) => d !== bBatch[i])) return undefined;
  return { rows: m, n, k, batches: batch };
}

/** `KernelV1.plan` of the SIMD MatMul: the choice for the node's static shapes. */
export function planComputedMatMulNode(node: KernelPlanInputV1): readonly (readonly [string, AttrValue])[] | undefined {
  const [a, b] = node.inputs;
  if (a?.type !== 'float32' || b?.type !== 'float32') return undefined;
  const task = computedMatMulTask(a.dims, b.dims);
  if (!task) return undefined;
  const plan = chooseComputedMatMul(task, node.threads, THREAD_WORKSPACE_BYTES);
  return [[MATMUL_PLAN, attr.ints(encodePlan(LAYOUT, plan.path, plan.threads, [], plan.tiles))]];
}

/**
 * The recorded plan, checked against this task: the path these shapes take here (with this
 * thread workspace) and tiles that cover the GEMM exactly once (tile-coverage.ts), a GEMV's
 * spanning every row. Tiles made for another thread count are split again for this one. A plan
 * that does not fit is TSGE-E7106 naming the node.
 */
export function recordedComputedMatMulPlan(
  node: string,
  ints: readonly number[],
  task: ComputedMatMulTask,
  threads: number,
  workspaceBytes: number | undefined,
): ComputedMatMulPlan {
  const bad = (reason: string): TsgeError => TsgeError.of('TSGE-E7106', { node, plan: MATMUL_PLAN, reason });
  const { path, threads: planThreads, tiles } = decodePlan(LAYOUT, ints, bad);
  const expected = pathOf(task, workspaceBytes);
  if (path !== expected)
    throw bad(`path ${PATH_NAMES[path]} for ${task.rows}×${task.k}·${task.k}×${task.n}, which takes ${PATH_NAMES[expected]}`);
  if (planThreads !== threads) return { path, threads, tiles: tilesOf(path, task.rows, task.n, task.k, threads) };
  if (path === ComputedMatMulPath.reference) {
    if (tiles.length > 0) throw bad('the reference path takes no tiles');
    return { path, threads, tiles };
  }
  for (const t of tiles)
    if (path === ComputedMatMulPath.gemvColumns && (t[0] !== 0 || t[1] !== task.rows))
      throw bad(`GEMV tile [${t}] does not span every row`);
  const problem = tileCoverage([task.rows, task.n], tiles);
  if (problem) throw bad(problem);
  return { path, threads, tiles };
}

/** Whether plan ints are this layout's (a MatMul with a computed B) rather than a PackedMatMul's. */
export const isComputedMatMulPlan = (ints: readonly number[]): boolean => ints[0] === LAYOUT.version;

const PATH_NAMES = Object.fromEntries(Object.entries(ComputedMatMulPath).map(([name, code]) => [code, name])) as Record<number, string>;

/** A recorded plan in words (for `atc --mode=6`). */
export function describeComputedMatMulPlan(ints: readonly number[]): string {
  const [, path, threads, count] = ints as number[];
  return `${PATH_NAMES[path as number] ?? `path ${path}`} (B computed), ${count} tiles for ${threads} threads`;
}
