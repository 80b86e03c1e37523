import { type AttrValue, type KernelPlanInputV1, TsgeError, attr } from '@tsge/metadef';
import { type ConvProblem, convProblem } from '@tsge/kernels-js/kernel-support';
import { PACKED_WEIGHT, packedWeightShape } from '@tsge/ops/kernel-support';
import { evenRanges, threadPieces } from './tiles.js';

/**
 * The node attribute holding an integer convolution's plan (ConvInteger, tsge::RequantizedConv),
 * made by the compiler for static shapes: [version, path, threads, by columns (0/1), range count,
 * then per range r0, r1]. The ranges split one image (one group's GEMM) into tiles: output
 * channels for depthwise, the GEMM's columns (output positions, from multiples of 8) or rows
 * (output channels within the group, from multiples of 4) otherwise; every image and group takes
 * the same split.
 */
export const INT_CONV_PLAN = 'int_conv_plan';
const VERSION = 1;
const HEAD = 5;

/** Implementations of an integer convolution, as recorded in the plan. */
export const IntConvPath = {
  /** The reference kernel (not a 2-D convolution). */
  reference: 0,
  /** One filter per channel over i16 row-pair planes. */
  depthwise: 1,
  /** The i16-pair GEMM per group (pointwise, window gather or padded gather). */
  gemm: 2,
} as const;

export interface IntConvPlan {
  readonly path: number;
  readonly threads: number;
  readonly byColumns: boolean;
  readonly ranges: readonly (readonly [number, number])[];
}

/** Below this many multiply-adds a convolution runs as one tile (a helper's wake-up would cost more). */
const MIN_SPLIT_WORK = 1 << 18;
/** Multiply-adds per tile a thread takes before the split adds tiles beyond one per thread. */
const TILE_WORK = 1 << 20;

/**
 * Splits [0, total) into ranges that are multiples of `granule`, as many as the threads times 1
 * to 4 (so that the tiles, which threads claim one at a time, come out even between them), of
 * about equal work: integer products are fast, so a small layer still splits (from
 * MIN_SPLIT_WORK on) where `splitRange`'s million-unit floor would leave it to one thread.
 */
export function intSplit(total: number, threads: number, granule: number, workPerItem: number): [number, number][] {
  const work = total * workPerItem;
  const units = Math.ceil(total / granule);
  let pieces = threadPieces(work, threads, MIN_SPLIT_WORK, TILE_WORK);
  // no more tiles than granules, still a multiple of the threads when there are that many
  pieces = Math.max(1, Math.min(pieces, units >= threads ? units - (units % threads) : units));
  return evenRanges(total, pieces, granule);
}

interface Shape {
  readonly depthwise: boolean;
  readonly twoD: boolean;
  readonly mg: number;
  /** Output positions of one image. */
  readonly positions: number;
  /** Multiply-adds per output element. */
  readonly taps: number;
}

function shapeOf(p: ConvProblem): Shape {
  const g = p.geometry;
  const cg = p.inChannels / p.group;
  const mg = p.outChannels / p.group;
  const kSize = g.kernel.reduce((s, d) => s * d, 1);
  return {
    depthwise: cg === 1 && mg === 1,
    twoD: g.inDims.length === 2,
    mg,
    positions: g.outDims.reduce((s, d) => s * d, 1),
    taps: cg * kSize,
  };
}

/** The GEMM splits columns when there are enough of them, else rows of output channels. */
const splitsColumns = (s: Shape, threads: number): boolean => s.positions >= 64 * threads || s.mg < 8;

function rangesOf(p: ConvProblem, s: Shape, path: number, threads: number): [number, number][] {
  if (path === IntConvPath.depthwise) return intSplit(p.outChannels, threads, 1, s.positions * s.taps);
  if (path !== IntConvPath.gemm) return [];
  return splitsColumns(s, threads) ? intSplit(s.positions, threads, 8, s.mg * s.taps) : intSplit(s.mg, threads, 4, s.positions * s.taps);
}

/** Chooses the implementation and tiles of an integer convolution. */
export function chooseIntConv(p: ConvProblem, threads: number): IntConvPlan {
  const s = shapeOf(p);
  const path = !s.twoD ? IntConvPath.reference : s.depthwise ? IntConvPath.depthwise : IntConvPath.gemm;
  return { path, threads, byColumns: path === IntConvPath.gemm && splitsColumns(s, threads), ranges: rangesOf(p, s, path, threads) };
}

/** The plan as the node attribute's ints. */
export function encodeIntConvPlan(plan: IntConvPlan): number[] {
  return [VERSION, plan.path, plan.threads, plan.byColumns ? 1 : 0, plan.ranges.length, ...plan.ranges.flat()];
}

/** `KernelV1.plan` of the SIMD integer convolutions: the choice for the node's static shapes (a packed weight's from its attribute). */
export function planIntConvNode(node: KernelPlanInputV1): readonly (readonly [string, AttrValue])[] | undefined {
  const [x, w] = node.inputs;
  if (!x || !w || x.dims.length !== 4) return undefined;
  let dims: readonly number[] = w.dims;
  if (node.attrs.has(PACKED_WEIGHT)) {
    const shape = packedWeightShape(node.attrs.ints(PACKED_WEIGHT));
    if (typeof shape === 'string') return undefined;
    dims = shape.dims;
  }
  const p = convProblem(node, x, { dims });
  return [[INT_CONV_PLAN, attr.ints(encodeIntConvPlan(chooseIntConv(p, node.threads)))]];
}

/**
 * The recorded plan of an integer convolution, checked against its task: the path these shapes
 * take and ranges that cover the split axis exactly once, in order, from whole granules. Ranges
 * made for another thread count are split again for this one. A plan that does not fit is
 * TSGE-E7106 naming the node.
 */
export function recordedIntConvPlan(node: string, ints: readonly number[], p: ConvProblem, threads: number): IntConvPlan {
  const bad = (reason: string): TsgeError => TsgeError.of('TSGE-E7106', { node, plan: INT_CONV_PLAN, reason });
  const [version, path, planThreads, columns, count] = ints as [number, number, number, number, number];
  if (ints.length < HEAD || version !== VERSION)
    throw bad(`expected version ${VERSION} with a ${HEAD}-int head, got [${ints.slice(0, HEAD)}]`);
  if (!Number.isInteger(count) || count < 0 || ints.length !== HEAD + 2 * count)
    throw bad(`${count} ranges need ${HEAD + 2 * count} ints, got ${ints.length}`);
  const s = shapeOf(p);
  const expected = chooseIntConv(p, threads).path;
  if (path !== expected && path !== IntConvPath.reference) throw bad(`path ${path} for a convolution that takes path ${expected}`);
  if (columns !== 0 && columns !== 1) throw bad(`by-columns flag ${columns}`);
  // another thread count: the split made again (its axis too)
  if (planThreads !== threads)
    return { path, threads, byColumns: path === IntConvPath.gemm && splitsColumns(s, threads), ranges: rangesOf(p, s, path, threads) };
  const byColumns = columns === 1;
  const ranges: [number, number][] = [];
  for (let i = HEAD; i < ints.length; i += 2) ranges.push([ints[i] as number, ints[i + 1] as number]);
  if (path === IntConvPath.reference) {
    if (ranges.length > 0) throw bad('the reference path takes no ranges');
    return { path, threads, byColumns, ranges };
  }
  const total = path === IntConvPath.depthwise ? p.outChannels : byColumns ? s.positions : s.mg;
  const granule = path === IntConvPath.depthwise ? 1 : byColumns ? 8 : 4;
  let at = 0;
  for (const [lo, hi] of ranges) {
    if (lo !== at || !Number.isInteger(hi) || hi <= lo || hi > total)
      throw bad(`range [${lo}, ${hi}) does not continue [0, ${at}) within ${total}`);
    if (lo % granule !== 0) throw bad(`range [${lo}, ${hi}) starts inside a block of ${granule}`);
    at = hi;
  }
  if (at !== total) throw bad(`the ranges cover [0, ${at}) of [0, ${total})`);
  return { path, threads, byColumns, ranges };
}

const PATH_NAMES = Object.fromEntries(Object.entries(IntConvPath).map(([name, code]) => [code, name])) as Record<number, string>;

/** A recorded integer conv plan in words (for `atc --mode=6`): path, split axis, tiles and the threads they were split for. */
export function describeIntConvPlan(ints: readonly number[]): string {
  const [version, path, threads, columns, count] = ints as number[];
  if (version !== VERSION || path === undefined) return `unknown plan format ${version}`;
  const axis = path === IntConvPath.gemm ? (columns ? ' by columns' : ' by rows') : '';
  return `integer ${PATH_NAMES[path] ?? `path ${path}`}${axis}, ${count} tiles for ${threads} threads`;
}
