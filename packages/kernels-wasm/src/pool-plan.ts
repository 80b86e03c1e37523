import { type AttrReader, type AttrValue, type KernelPlanInputV1, TsgeError, attr } from '@tsge/metadef';
import { windowGeometry } from '@tsge/kernels-js/kernel-support';
import { readWindowAttrs } from '@tsge/ops/kernel-support';
import { type PlanLayout, decodePlan, encodePlan } from './plan-ints.js';
import { tileCoverage } from './tile-coverage.js';
import { splitRange } from './tiles.js';

/**
 * The node attribute holding a MaxPool/AveragePool plan, made by the compiler for static shapes:
 * [version, path, threads, tile count, then per tile p0, p1] — runs of whole planes (N·C of them).
 */
export const POOL_PLAN = 'pool_plan';

/** Implementations of a 2-D float32 pooling, as recorded in the plan. */
export const PoolPath = {
  /** The reference kernel (not 2-D, or attributes the SIMD kernels do not take). */
  reference: 0,
  /** One unpadded window over each whole plane: a plane reduction on the calling thread. */
  global: 1,
  /** The window kernels over runs of whole planes, split across threads. */
  planes: 2,
} as const;
const LAYOUT: PlanLayout = { version: 1, head: 4, paths: 3, tileInts: 2 };

/** A 2-D pooling task: planes, their geometry and the kernel window. */
export interface PoolTask {
  readonly planes: number;
  readonly H: number;
  readonly W: number;
  readonly kernel: readonly [number, number];
  readonly g: ReturnType<typeof windowGeometry>;
}

export interface PoolPlan {
  readonly path: number;
  readonly threads: number;
  /** [p0, p1] each. */
  readonly tiles: readonly (readonly number[])[];
}

/** The 2-D task of a pooling over x [N, C, H, W]; undefined when the SIMD kernels do not take it. */
export function poolTask(attrs: AttrReader, dims: readonly number[]): PoolTask | undefined {
  if (dims.length !== 4) return undefined;
  const kernel = attrs.ints('kernel_shape', []);
  if (kernel.length !== 2 || kernel.some((k) => !(k >= 1))) return undefined;
  const w = readWindowAttrs(attrs, kernel);
  if (w.strides.some((s) => !(s >= 1)) || w.dilations.some((d) => !(d >= 1))) return undefined;
  const [n, c, H, W] = dims as [number, number, number, number];
  return { planes: n * c, H, W, kernel: kernel as unknown as [number, number], g: windowGeometry(w, [H, W]) };
}

/** Whether the task is one window over each whole unpadded plane (Keras' global pooling as AveragePool). */
function isGlobal(t: PoolTask): boolean {
  const { g, H, W } = t;
  const [OH, OW] = g.outDims as [number, number];
  const [KH, KW] = t.kernel;
  return (
    OH === 1 &&
    OW === 1 &&
    KH === H &&
    KW === W &&
    g.dilations.every((d) => d === 1) &&
    [...g.padsBegin, ...g.padsEnd].every((p) => p === 0)
  );
}

function pathOf(t: PoolTask | undefined): number {
  if (!t) return PoolPath.reference;
  return isGlobal(t) ? PoolPath.global : PoolPath.planes;
}

function tilesOf(path: number, t: PoolTask | undefined, threads: number): number[][] {
  if (path !== PoolPath.planes || !t) return [];
  const [OH, OW] = t.g.outDims as [number, number];
  // a window tap costs about a nanosecond: tiles from 128K taps
  return splitRange(t.planes, threads, 1, OH * OW * t.kernel[0] * t.kernel[1], 1 << 17);
}

/** The buffers of the padded-band pooling kernels (see pool-padded-module.ts) in a thread's workspace. */
export interface PaddedPoolLayout {
  /** Floats a padded row holds: every tap of whole 4-output steps, and the whole input row. */
  readonly Wp: number;
  /** Output rows a band covers, and the padded rows it reads. */
  readonly bandOut: number;
  readonly Hb: number;
  /** Byte offset of the band buffer after the per-column tap counts (AveragePool). */
  readonly bandOffset: number;
}

/** Whether every window of a dimension has a tap inside [0, size). */
function everyWindowTouches(out: number, size: number, stride: number, pad: number, k: number, dilation: number): boolean {
  for (let o = 0; o < out; o++) {
    const start = o * stride - pad;
    let touches = false;
    for (let t = 0; t < k && !touches; t++) touches = start + t * dilation >= 0 && start + t * dilation < size;
    if (!touches) return false;
  }
  return true;
}

/**
 * The layout of the padded-band kernels for a 'planes' pooling, or undefined when they do not take
 * it: column stride 1 or 2, two or more output columns, every window touching the input (the reference gives windows past the
 * input −∞ or 0/0), dilation 1 for MaxPool (its edge padding repeats a window's own values only
 * when its taps are contiguous), and one band of output rows fitting in `workspaceBytes`.
 */
export function paddedPoolLayout(t: PoolTask, kind: 'max' | 'avg', workspaceBytes: number): PaddedPoolLayout | undefined {
  const { g, H, W } = t;
  const [KH, KW] = t.kernel;
  const [OH, OW] = g.outDims as [number, number];
  const [sh, sw] = g.strides as [number, number];
  const [dh, dw] = g.dilations as [number, number];
  const [pt, pl] = g.padsBegin as [number, number];
  // one output a row leaves 3 of 4 lanes idle: the window kernels' scalar path is as fast there
  if ((sw !== 1 && sw !== 2) || OW < 2) return undefined;
  if (kind === 'max' && (dh !== 1 || dw !== 1)) return undefined;
  if (!everyWindowTouches(OH, H, sh, pt, KH, dh) || !everyWindowTouches(OW, W, sw, pl, KW, dw)) return undefined;
  const steps = Math.ceil(OW / 4) * 4;
  const Wp = Math.ceil(Math.max(pl + W, steps * sw + (KW - 1) * dw) / 4) * 4;
  const bandOffset = Math.ceil((steps * 4) / 64) * 64;
  const rowsFor = (out: number): number => (out - 1) * sh + (KH - 1) * dh + 1;
  const fitRows = Math.floor((workspaceBytes - bandOffset) / (Wp * 4));
  const bandOut = Math.min(OH, Math.floor((fitRows - rowsFor(1)) / sh) + 1);
  if (!(bandOut >= 1)) return undefined;
  return { Wp, bandOut, Hb: rowsFor(bandOut), bandOffset };
}

/** Chooses the implementation and plane split of a pooling. */
export function choosePool(t: PoolTask | undefined, threads: number): PoolPlan {
  const path = pathOf(t);
  return { path, threads, tiles: tilesOf(path, t, threads) };
}

/** `KernelV1.plan` of the SIMD MaxPool/AveragePool: the choice for the node's static shapes. */
export function planPoolNode(node: KernelPlanInputV1): readonly (readonly [string, AttrValue])[] | undefined {
  const x = node.inputs[0];
  // MaxPool's Indices output runs on the reference kernel, which takes no plan
  if (x?.type !== 'float32' || (node.outputCount ?? 1) > 1) return undefined;
  const plan = choosePool(poolTask(node.attrs, x.dims), node.threads);
  return [[POOL_PLAN, attr.ints(encodePlan(LAYOUT, plan.path, plan.threads, [], plan.tiles))]];
}

/**
 * The recorded plan of a pooling, checked against its task: the path these shapes take and plane
 * runs that cover every plane once. Runs made for another thread count are split again for this
 * one. A plan that does not fit is TSGE-E7106 naming the node.
 */
export function recordedPoolPlan(node: string, ints: readonly number[], t: PoolTask | undefined, threads: number): PoolPlan {
  const bad = (reason: string): TsgeError => TsgeError.of('TSGE-E7106', { node, plan: POOL_PLAN, reason });
  const { path, threads: planThreads, tiles } = decodePlan(LAYOUT, ints, bad);
  const expected = pathOf(t);
  if (path !== expected) throw bad(`path ${PATH_NAMES[path]} for a pooling that takes ${PATH_NAMES[expected]}`);
  if (planThreads !== threads) return { path, threads, tiles: tilesOf(path, t, threads) };
  const problem =
    path === PoolPath.planes && t
      ? tileCoverage([t.planes], tiles)
      : tiles.length === 0
        ? undefined
        : `path ${PATH_NAMES[path]} takes no tiles`;
  if (problem) throw bad(problem);
  return { path, threads, tiles };
}

const PATH_NAMES = Object.fromEntries(Object.entries(PoolPath).map(([name, code]) => [code, name])) as Record<number, string>;

/** A recorded pooling plan in words (for `atc --mode=6`). */
export function describePoolPlan(ints: readonly number[]): string {
  const [version, path, threads, count] = ints as number[];
  if (version !== LAYOUT.version || path === undefined) return `unknown plan format ${version}`;
  return `${PATH_NAMES[path] ?? `path ${path}`}, ${count} tiles for ${threads} threads`;
}
