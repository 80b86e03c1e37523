import { type AttrValue, type KernelPlanInputV1, TsgeError, attr } from '@tsge/metadef';
import { PACKED_MATMUL_PANEL } from '@tsge/ops/kernel-support';
import { packedGemmRanges } from './gemm-packed-tiles.js';
import { GEMV_MAX_ROWS } from './gemv-tiles.js';
import { type PlanLayout, decodePlan, encodePlan } from './plan-ints.js';
import { tileCoverage } from './tile-coverage.js';

/**
 * The node attribute holding a tsge::PackedMatMul's plan, made by the compiler for static shapes:
 * [version, path, threads, tile count, then per tile m0, m1, n0, n1] — blocks of rows of A and
 * columns of Y (n0 on a whole 8-column panel; a GEMV tile spans every row).
 */
export const MATMUL_PLAN = 'matmul_plan';
const P = PACKED_MATMUL_PANEL;

/** Implementations of a PackedMatMul, as recorded in the plan. */
export const MatMulPath = {
  /** The reference kernel (no rows, or no thread workspace for the GEMM). */
  reference: 0,
  /** Up to GEMV_MAX_ROWS rows of A stream each panel once (`simd.gemvPanels`). */
  gemvPanels: 1,
  /** The blocked GEMM on the packed panels (`simd.gemmPrepacked`, thread workspace). */
  gemm: 2,
} as const;
const LAYOUT: PlanLayout = { version: 1, head: 4, paths: 3, tileInts: 4 };

export interface MatMulPlan {
  readonly path: number;
  readonly threads: number;
  /** [m0, m1, n0, n1] each. */
  readonly tiles: readonly (readonly number[])[];
}

/** Panel ranges of a GEMV as [0, m, n0, n1] blocks: four per thread (a slowed thread leaves its later ones to the others), ≥ 256 K multiply-adds each. */
function gemvBlocks(m: number, n: number, k: number, threads: number): number[][] {
  const panels = Math.ceil(n / P);
  let wanted = Math.max(1, Math.min(threads > 1 ? 4 * threads : 1, Math.floor((n * m * k) / (1 << 18)), panels));
  // a whole number of tiles a thread: 3 tiles on 2 threads finish when one thread has run 2 of them
  if (wanted > threads) wanted -= wanted % threads;
  const size = Math.ceil(panels / wanted);
  const blocks: number[][] = [];
  for (let q0 = 0; q0 < panels; q0 += size) blocks.push([0, m, q0 * P, Math.min(n, (q0 + size) * P)]);
  return blocks;
}

function tilesOf(path: number, rows: number, n: number, k: number, threads: number): number[][] {
  if (path === MatMulPath.gemvPanels) return gemvBlocks(rows, n, k, threads);
  if (path === MatMulPath.gemm) return packedGemmRanges(rows, n, k, threads);
  return [];
}

/** The path these shapes take (`workspace`: whether a thread workspace is bound). */
function pathOf(rows: number, n: number, workspace: boolean): number {
  if (rows === 0 || n === 0) return MatMulPath.reference;
  if (rows <= GEMV_MAX_ROWS) return MatMulPath.gemvPanels;
  return workspace ? MatMulPath.gemm : MatMulPath.reference;
}

/** Chooses the implementation and tiles of Y[rows×n] = A[rows×k]·B_packed. */
export function chooseMatMul(rows: number, n: number, k: number, threads: number, workspace: boolean): MatMulPlan {
  const path = pathOf(rows, n, workspace);
  return { path, threads, tiles: tilesOf(path, rows, n, k, threads) };
}

/** `KernelV1.plan` of the SIMD PackedMatMul: the choice for the node's static shapes. */
export function planMatMulNode(node: KernelPlanInputV1): readonly (readonly [string, AttrValue])[] | undefined {
  const [a, b] = node.inputs;
  if (a?.type !== 'float32' || b?.type !== 'float32' || a.dims.length < 2) return undefined;
  const k = a.dims[a.dims.length - 1] as number;
  const rows = a.dims.slice(0, -1).reduce((p, d) => p * d, 1);
  const n = node.attrs.int('n');
  const plan = chooseMatMul(rows, n, k, node.threads, true);
  return [[MATMUL_PLAN, attr.ints(encodePlan(LAYOUT, plan.path, plan.threads, [], plan.tiles))]];
}

/**
 * The recorded plan of a PackedMatMul, checked against its task: the path these shapes take, and
 * tiles that cover Y exactly once on whole panels. Tiles made for another thread count are split
 * again for this one. A plan that does not fit is TSGE-E7106 naming the node.
 */
export function recordedMatMulPlan(
  node: string,
  ints: readonly number[],
  task: { rows: number; n: number; k: number },
  threads: number,
  workspace: boolean,
): MatMulPlan {
  const bad = (reason: string): TsgeError => TsgeError.of('TSGE-E7106', { node, plan: MATMUL_PLAN, reason });
  const { path, threads: planThreads, tiles } = decodePlan(LAYOUT, ints, bad);
  const { rows, n, k } = task;
  const expected = pathOf(rows, n, workspace);
  if (path !== expected) throw bad(`path ${PATH_NAMES[path]} for ${rows} rows and ${n} columns, which take ${PATH_NAMES[expected]}`);
  if (planThreads !== threads) return { path, threads, tiles: tilesOf(path, rows, n, k, threads) };
  const problem = coverage(path, rows, n, tiles);
  if (problem) throw bad(problem);
  return { path, threads, tiles };
}

function coverage(path: number, rows: number, n: number, tiles: readonly (readonly number[])[]): string | undefined {
  if (path === MatMulPath.reference) return tiles.length === 0 ? undefined : 'the reference path takes no tiles';
  for (const t of tiles) {
    // both kernels start on a whole panel; the GEMV runs every row of its panels
    if ((t[2] as number) % P !== 0) return `tile [${t}] starts inside a panel`;
    if (path === MatMulPath.gemvPanels && (t[0] !== 0 || t[1] !== rows)) return `GEMV tile [${t}] does not span every row`;
  }
  return tileCoverage([rows, n], tiles);
}

const PATH_NAMES = Object.fromEntries(Object.entries(MatMulPath).map(([name, code]) => [code, name])) as Record<number, string>;

/** A recorded PackedMatMul plan in words (for `atc --mode=6`). */
export function describeMatMulPlan(ints: readonly number[]): string {
  const [version, path, threads, count] = ints as number[];
  if (version !== LAYOUT.version || path === undefined) return `unknown plan format ${version}`;
  return `${PATH_NAMES[path] ?? `path ${path}`}, ${count} tiles for ${threads} threads`;
}
