import { type AttrValue, type KernelPlanInputV1, TsgeError, attr } from '@tsge/metadef';
import { type ConvProblem, convProblem } from '@tsge/kernels-js/kernel-support';
import { type DirectGeometry, directSlab } from './conv-direct-tiles.js';
import { WORKSPACE_HEADER, convTiles } from './conv-gemm-tiles.js';
import { pointwiseFits } from './conv-pointwise-tiles.js';
import { THREAD_WORKSPACE_BYTES } from './thread-workspace.js';
import { type PlanLayout, decodePlan, encodePlan } from './plan-ints.js';
import { tileCoverage } from './tile-coverage.js';
import { evenRanges, threadPieces } from './tiles.js';

/**
 * The node attribute holding a convolution's plan, made by the compiler for static shapes:
 * [version, path, threads, slab width, slab band rows, tile count, then per tile g0, g1, m0, m1,
 * u0, u1]. Tiles are output blocks: groups × output channels (within the group) × units (output
 * positions; output rows on the direct path; for depthwise, channels over every position).
 */
export const CONV_PLAN = 'conv_plan';

/** Implementations of a float32 convolution, as recorded in the plan. */
export const ConvPath = {
  /** The reference kernel (no SIMD path fits). */
  reference: 0,
  /** im2col panels in the thread workspace, blocked GEMM reading the weights in place. */
  im2col: 1,
  /** Stride 1, few output channels: bands of zero-padded input rows read through a row table. */
  direct: 2,
  /** Unpadded 1×1, few output channels: the input read in place as B. */
  pointwise: 3,
  /** One filter per channel, unrolled kernels over zero-padded planes. */
  depthwise: 4,
  /** 1-D and 3-D convolutions: panels staged in a scratch memory on the calling thread. */
  staged: 5,
  /** Unpadded 1×1 with few input channels: 8-column panels of the input copied once and read from L1. */
  pointwisePanels: 6,
} as const;
const LAYOUT: PlanLayout = { version: 1, head: 6, paths: 7, tileInts: 6 };

/**
 * Output channels per group up to which stride-1 convolutions skip im2col (measured in CPU time:
 * k×k filters gain up to 64 channels, pointwise ones below 32; beyond, im2col's panels win or tie).
 */
const DIRECT_MAX_CHANNELS = 64;
const DIRECT_MAX_CHANNELS_POINTWISE = 31;

export interface ConvPlan {
  readonly path: number;
  /** Threads the tiles were split for. */
  readonly threads: number;
  readonly slab: DirectGeometry | undefined;
  /** [g0, g1, m0, m1, u0, u1] each. */
  readonly tiles: readonly (readonly number[])[];
}

interface Shape {
  readonly mg: number;
  readonly cg: number;
  readonly kDim: number;
  readonly kSize: number;
  readonly outSize: number;
  readonly pointwise: boolean;
  readonly stride1: boolean;
  readonly twoD: boolean;
}

function shapeOf(p: ConvProblem): Shape {
  const g = p.geometry;
  const kSize = g.kernel.reduce((s, d) => s * d, 1);
  const inSize = g.inDims.reduce((s, d) => s * d, 1);
  const outSize = g.outDims.reduce((s, d) => s * d, 1);
  const cg = p.inChannels / p.group;
  return {
    mg: p.outChannels / p.group,
    cg,
    kDim: cg * kSize,
    kSize,
    outSize,
    pointwise: kSize === 1 && g.padsBegin.every((d) => d === 0) && inSize === outSize,
    stride1: g.strides.every((s) => s === 1),
    twoD: g.inDims.length === 2,
  };
}

/** The slab geometry of the direct path, when one fits the workspace. */
function slabOf(p: ConvProblem, s: Shape, workspaceBytes: number): DirectGeometry | undefined {
  const g = p.geometry;
  const [H, W] = g.inDims as [number, number];
  const [, OW] = g.outDims as [number, number];
  const [KH, KW] = g.kernel as [number, number];
  const [dh, dw] = g.dilations as [number, number];
  return directSlab(s.cg, { H, W, OW, KH, KW, dh, dw, pl: g.padsBegin[1] as number }, workspaceBytes);
}

/** The tiles of a path for a thread count (the split the plan records). */
function tilesOf(p: ConvProblem, s: Shape, path: number, threads: number): number[][] {
  const g = p.geometry;
  if (path === ConvPath.depthwise) {
    const [OH, OW] = g.outDims as [number, number];
    const kSize = s.kSize;
    // channels of a few output planes each; depthwise runs ~8 G multiply-adds/s, so 1 << 18 is ~30 µs
    const pieces = Math.min(p.outChannels, threadPieces(p.outChannels * OH * OW * kSize, threads, 1 << 18, 1 << 20));
    return evenRanges(p.outChannels, pieces, 1).map(([c0, c1]) => [0, 1, c0, c1, 0, OH * OW]);
  }
  if (path === ConvPath.pointwise || path === ConvPath.pointwisePanels || path === ConvPath.im2col)
    return convTiles(p.group, s.mg, s.outSize, s.kDim, threads);
  if (path === ConvPath.direct) {
    const [OH, OW] = g.outDims as [number, number];
    return convTiles(p.group, s.mg, OH, s.kDim * OW, threads, 1, 1);
  }
  return [];
}

/** Chooses the implementation, slab and tiles of a convolution (`workspaceBytes` undefined: no thread workspace). */
export function chooseConv(p: ConvProblem, threads: number, workspaceBytes: number | undefined): ConvPlan {
  const s = shapeOf(p);
  const plan = (path: number, slab?: DirectGeometry): ConvPlan => ({ path, threads, slab, tiles: tilesOf(p, s, path, threads) });
  if (s.mg === 1 && s.cg === 1 && s.twoD) return plan(ConvPath.depthwise);
  if (!s.twoD) return plan(s.mg < 4 ? ConvPath.reference : ConvPath.staged);
  // a packed panel of 8 columns must fit the workspace; otherwise the reference kernel
  if (workspaceBytes === undefined || WORKSPACE_HEADER + s.kDim * 32 > workspaceBytes) return plan(ConvPath.reference);
  // pointwise with few input channels: the input's panels copied once and read from L1 by every row block
  if (s.pointwise && s.stride1 && pointwiseFits(s.cg, s.mg, s.outSize, workspaceBytes)) return plan(ConvPath.pointwisePanels);
  // stride 1 with few output channels, where im2col costs a large share of the GEMM: B read in
  // place (pointwise) or from a padded slab of input rows
  if (s.stride1 && s.mg <= (s.pointwise ? DIRECT_MAX_CHANNELS_POINTWISE : DIRECT_MAX_CHANNELS)) {
    if (s.pointwise) return plan(ConvPath.pointwise);
    const slab = slabOf(p, s, workspaceBytes);
    if (slab) return plan(ConvPath.direct, slab);
  }
  return plan(ConvPath.im2col);
}

/** The plan as the node attribute's ints. */
export function encodeConvPlan(plan: ConvPlan): number[] {
  return encodePlan(LAYOUT, plan.path, plan.threads, [plan.slab?.width ?? 0, plan.slab?.bandRows ?? 0], plan.tiles);
}

/** `KernelV1.plan` of the SIMD Conv and FusedConv kernels: the choice for the node's static shapes. */
export function planConvNode(node: KernelPlanInputV1): readonly (readonly [string, AttrValue])[] | undefined {
  const [x, w] = node.inputs;
  if (x?.type !== 'float32' || w?.type !== 'float32') return undefined;
  const p = convProblem(node, x, w);
  return [[CONV_PLAN, attr.ints(encodeConvPlan(chooseConv(p, node.threads, THREAD_WORKSPACE_BYTES)))]];
}

/**
 * The recorded plan of a convolution, checked against its task: a path these shapes and this
 * workspace can run, its slab, and tiles that cover the output exactly once. Tiles made for another
 * thread count are split again for this one (the only choice left to the run). A plan that does
 * not fit is TSGE-E7106 naming the node.
 */
export function recordedConvPlan(
  node: string,
  ints: readonly number[],
  p: ConvProblem,
  threads: number,
  workspaceBytes: number | undefined,
): ConvPlan {
  const bad = (reason: string): TsgeError => TsgeError.of('TSGE-E7106', { node, plan: CONV_PLAN, reason });
  const { path, threads: planThreads, extra, tiles } = decodePlan(LAYOUT, ints, bad);
  const [width, bandRows] = extra as [number, number];
  const s = shapeOf(p);
  const why = pathMismatch(s, path, workspaceBytes);
  if (why) throw bad(why);
  let slab: DirectGeometry | undefined;
  if (path === ConvPath.direct) {
    const fits = workspaceBytes === undefined ? undefined : slabOf(p, s, workspaceBytes);
    if (!fits || width !== fits.width || !Number.isInteger(bandRows) || bandRows < 1 || bandRows > fits.bandRows)
      throw bad(`slab [${width}, ${bandRows}] does not fit (width ${fits?.width ?? '-'}, at most ${fits?.bandRows ?? 0} rows)`);
    slab = { width, bandRows };
  }
  if (planThreads !== threads) return { path, threads, slab, tiles: tilesOf(p, s, path, threads) };
  const problem = coverage(p, s, path, tiles);
  if (problem) throw bad(problem);
  return { path, threads, slab, tiles };
}

/** Why `path` cannot run these shapes; undefined when it can. */
function pathMismatch(s: Shape, path: number, workspaceBytes: number | undefined): string | undefined {
  const depthwise = s.mg === 1 && s.cg === 1 && s.twoD;
  const gemmFits = workspaceBytes !== undefined && WORKSPACE_HEADER + s.kDim * 32 <= workspaceBytes;
  switch (path) {
    case ConvPath.depthwise:
      return depthwise ? undefined : 'a depthwise plan for a convolution with more than one channel per group';
    case ConvPath.staged:
      return !s.twoD && s.mg >= 4 ? undefined : 'a staged plan needs a 1-D or 3-D convolution with 4 or more channels per group';
    case ConvPath.im2col:
    case ConvPath.direct:
    case ConvPath.pointwise:
    case ConvPath.pointwisePanels:
      if (!s.twoD || depthwise) return `a GEMM plan (path ${path}) for a ${depthwise ? 'depthwise' : 'non-2-D'} convolution`;
      if (!gemmFits) return `K = ${s.kDim} does not fit the thread workspace`;
      if (path === ConvPath.pointwise && !(s.pointwise && s.stride1)) return 'a pointwise plan for a padded, strided or k×k convolution';
      if (
        path === ConvPath.pointwisePanels &&
        !(s.pointwise && s.stride1 && pointwiseFits(s.cg, s.mg, s.outSize, workspaceBytes as number))
      )
        return 'a pointwise-panels plan for a convolution it does not fit';
      if (path === ConvPath.direct && !s.stride1) return 'a direct plan for a strided convolution';
      return undefined;
    default:
      // the reference kernel runs any convolution
      return undefined;
  }
}

/** Why tiles do not cover the output exactly once (undefined when they do). */
function coverage(p: ConvProblem, s: Shape, path: number, tiles: readonly (readonly number[])[]): string | undefined {
  if (path === ConvPath.reference || path === ConvPath.staged) return tiles.length === 0 ? undefined : `path ${path} takes no tiles`;
  const [OH] = p.geometry.outDims as [number, number];
  const depthwise = path === ConvPath.depthwise;
  for (const t of tiles) {
    // the im2col and pointwise kernels start blocks on whole panels of 8 positions
    if ((path === ConvPath.im2col || path === ConvPath.pointwise || path === ConvPath.pointwisePanels) && (t[4] as number) % 8 !== 0)
      return `tile [${t}] starts inside a panel`;
    if (depthwise && (t[4] !== 0 || t[5] !== s.outSize)) return `depthwise tile [${t}] does not span every position`;
  }
  return tileCoverage([depthwise ? 1 : p.group, depthwise ? p.outChannels : s.mg, path === ConvPath.direct ? OH : s.outSize], tiles);
}

const PATH_NAMES = Object.fromEntries(Object.entries(ConvPath).map(([name, code]) => [code, name])) as Record<number, string>;

/** A recorded conv plan in words (for `atc --mode=6`): path, slab, tiles and the threads they were split for. */
export function describeConvPlan(ints: readonly number[]): string {
  const [version, path, threads, width, bandRows, count] = ints as number[];
  if (version !== LAYOUT.version || path === undefined) return `unknown plan format ${version}`;
  const slab = path === ConvPath.direct ? ` (slab rows of ${width}, up to ${bandRows} output rows a band)` : '';
  return `${PATH_NAMES[path] ?? `path ${path}`}${slab}, ${count} tiles for ${threads} threads`;
}
