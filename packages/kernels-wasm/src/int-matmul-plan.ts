import { type AttrValue, type KernelPlanInputV1, TsgeError, attr } from '@tsge/metadef';
import { PACKED_WEIGHT, intSumsFit, packedPanelsShape } from '@tsge/ops/kernel-support';
import { intSplit } from './int-conv-plan.js';
import { type PlanLayout, decodePlan, encodePlan } from './plan-ints.js';
import { tileCoverage } from './tile-coverage.js';

/**
 * The node attribute holding a tsge::PackedMatMulInteger's plan, made by the compiler for static
 * shapes: [version, path, threads, tile count, then per tile m0, m1, n0, n1] — blocks of the
 * product's rows and columns (n0 a multiple of 8). The rows are every batch's rows as one GEMM,
 * or one batch's when A's zero point is one per row (each batch then takes the same tiles).
 */
export const INT_MATMUL_PLAN = 'int_matmul_plan';

/** Implementations of an integer matrix product, as recorded in the plan. */
export const IntMatMulPath = {
  /** The reference kernel (no rows, or sums that may leave int32). */
  reference: 0,
  /** The i16-pair GEMM (`igemm`) over the panels. */
  gemm: 1,
} as const;
const LAYOUT: PlanLayout = { version: 1, head: 4, paths: 2, tileInts: 4 };

export interface IntMatMulPlan {
  readonly path: number;
  readonly threads: number;
  /** [m0, m1, n0, n1] each. */
  readonly tiles: readonly (readonly number[])[];
}

/** The path Y[rows×n] = A[rows×k]·B takes. */
const pathOf = (rows: number, n: number, k: number): number =>
  rows > 0 && n > 0 && k > 0 && intSumsFit(k) ? IntMatMulPath.gemm : IntMatMulPath.reference;

/** The GEMM's [m0, m1, n0, n1] tiles: columns (multiples of 8) when there are enough of them, else rows (multiples of 4). */
export function intMatMulTiles(rows: number, n: number, k: number, threads: number): [number, number, number, number][] {
  if (n >= 64 * threads || rows < 8) return intSplit(n, threads, 8, rows * k).map(([n0, n1]) => [0, rows, n0, n1]);
  return intSplit(rows, threads, 4, n * k).map(([m0, m1]) => [m0, m1, 0, n]);
}

/** Chooses the implementation and tiles of Y[rows×n] = A[rows×k]·B. */
export function chooseIntMatMul(rows: number, n: number, k: number, threads: number): IntMatMulPlan {
  const path = pathOf(rows, n, k);
  return { path, threads, tiles: path === IntMatMulPath.gemm ? intMatMulTiles(rows, n, k, threads) : [] };
}

/** Rows of one GEMM for A[..., M, K]: all of them, or one batch's with a per-row zero point. */
export function intMatMulRows(aDims: readonly number[], zeroPoints: number): { rows: number; batches: number } {
  const m = aDims[aDims.length - 2] as number;
  const batches = aDims.slice(0, -2).reduce((p, d) => p * d, 1);
  return zeroPoints > 1 ? { rows: m, batches } : { rows: m * batches, batches: 1 };
}

/** `KernelV1.plan` of the SIMD PackedMatMulInteger: the choice for the node's static shapes. */
export function planIntMatMulNode(node: KernelPlanInputV1): readonly (readonly [string, AttrValue])[] | undefined {
  const [a, , az] = node.inputs;
  const shape = node.attrs.has(PACKED_WEIGHT) ? packedPanelsShape(node.attrs.ints(PACKED_WEIGHT)) : 'absent';
  if (!a || a.dims.length < 2 || typeof shape === 'string') return undefined;
  const { rows } = intMatMulRows(a.dims, az ? az.dims.reduce((p, d) => p * d, 1) : 0);
  const plan = chooseIntMatMul(rows, shape.n, shape.k, node.threads);
  return [[INT_MATMUL_PLAN, attr.ints(encodePlan(LAYOUT, plan.path, plan.threads, [], plan.tiles))]];
}

/**
 * The recorded plan, checked against this task: the path these shapes take and tiles that cover
 * the product exactly once (tile-coverage.ts), columns from multiples of 8. Tiles made for another
 * thread count are split again for this one. A plan that does not fit is TSGE-E7106 naming the node.
 */
export function recordedIntMatMulPlan(
  node: string,
  ints: readonly number[],
  task: { rows: number; n: number; k: number },
  threads: number,
): IntMatMulPlan {
  const bad = (reason: string): TsgeError => TsgeError.of('TSGE-E7106', { node, plan: INT_MATMUL_PLAN, reason });
  const { path, threads: planThreads, tiles } = decodePlan(LAYOUT, ints, bad);
  const { rows, n, k } = task;
  const expected = pathOf(rows, n, k);
  if (path !== expected) throw bad(`path ${PATH_NAMES[path]} for ${rows}×${k}·${k}×${n}, which takes ${PATH_NAMES[expected]}`);
  if (planThreads !== threads) return chooseIntMatMul(rows, n, k, threads);
  if (path === IntMatMulPath.reference) {
    if (tiles.length > 0) throw bad('the reference path takes no tiles');
    return { path, threads, tiles };
  }
  for (const t of tiles) if ((t[2] as number) % 8 !== 0) throw bad(`tile [${t}] starts inside a block of 8 columns`);
  const problem = tileCoverage([rows, n], tiles);
  if (problem) throw bad(problem);
  return { path, threads, tiles };
}

const PATH_NAMES = Object.fromEntries(Object.entries(IntMatMulPath).map(([name, code]) => [code, name])) as Record<number, string>;

/** A recorded plan in words (for `atc --mode=6`). */
export function describeIntMatMulPlan(ints: readonly number[]): string {
  const [version, path, threads, count] = ints as number[];
  if (version !== LAYOUT.version || path === undefined) return `unknown plan format ${version}`;
  return `integer matmul ${PATH_NAMES[path] ?? `path ${path}`}, ${count} tiles for ${threads} threads`;
}
