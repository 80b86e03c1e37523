import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import type { PoolKind } from './pool-module.js';
import { simdKernels } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';
import {
  POOL_PLAN,
  PoolPath,
  type PoolPlan,
  type PoolTask,
  choosePool,
  paddedPoolLayout,
  planPoolNode,
  poolTask,
  recordedPoolPlan,
} from './pool-plan.js';
import { PADDED_POOLS, paddedPoolIndex, paddedPoolName } from './pool-padded-module.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, tileFunction, runTiles } from './tiles.js';

const plans = new WeakMap<KernelContextV1, { ints: readonly number[] | undefined; key: string; plan: PoolPlan }>();

/** The compiler's plan for static shapes, checked against this task once per context, else one made now. */
function poolPlan(ctx: KernelContextV1, task: PoolTask | undefined): PoolPlan {
  const threads = ctx.parallel?.threads ?? 1;
  const ints = ctx.attrs.has(POOL_PLAN) ? ctx.attrs.ints(POOL_PLAN) : undefined;
  const key = `${task ? [task.planes, task.H, task.W, ...task.g.outDims] : '-'},${threads}`;
  const known = plans.get(ctx);
  if (known && known.ints === ints && known.key === key) return known.plan;
  const plan = ints ? recordedPoolPlan(ctx.nodeName, ints, task, threads) : choosePool(task, threads);
  plans.set(ctx, { ints, key, plan });
  return plan;
}

/**
 * MaxPool (without Indices) and AveragePool over 2-D float32 planes in device memory; other ranks,
 * dtypes and the Indices output go to the reference kernel.
 */
function simdPoolKernel(opType: string, kind: PoolKind, reference: KernelV1): KernelV1 {
  return defineKernel({
    opType,
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    plan: planPoolNode,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      // the Indices output is the reference kernel's (a plan recorded for the node does not apply to it)
      if (!memory || x?.type !== 'float32' || ctx.outputCount > 1 || !inMemory(memory, x)) {
        return reference.compute(ctx);
      }
      const task = poolTask(ctx.attrs, x.dims);
      const plan = poolPlan(ctx, task);
      if (!task || plan.path === PoolPath.reference) return reference.compute(ctx);
      const { g, H, W } = task;
      const [n, c] = x.dims as [number, number];
      const [OH, OW] = g.outDims as [number, number];
      const kernels = simdKernels(memory);
      if (!kernels) return reference.compute(ctx);
      const y = ctx.output(0, [n, c, OH, OW], 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      if (n * c * OH * OW === 0) return;
      if (plan.path === PoolPath.global) {
        // a plane reduction, where the window kernels' per-output loop ran at about 1 GFLOP/s on 128×128
        const run = kind === 'max' ? kernels.globalPoolMax : kernels.globalPoolAvg;
        run((x.data as Float32Array).byteOffset, (y.data as Float32Array).byteOffset, n * c, H * W);
        return;
      }
      const [KH, KW] = task.kernel;
      const [sh, sw] = g.strides as [number, number];
      const [dh, dw] = g.dilations as [number, number];
      const [pt, pl] = g.padsBegin as [number, number];
      const [pb, pr] = g.padsEnd as [number, number];
      const includePad = kind === 'avg' && ctx.attrs.int('count_include_pad', 0) !== 0;
      const X = (x.data as Float32Array).byteOffset;
      const Y = (y.data as Float32Array).byteOffset;
      const bounds = [includePad ? -pt : 0, includePad ? H + pb : H, includePad ? -pl : 0, includePad ? W + pr : W];
      const workspace = threadWorkspace(memory);
      const padded = workspace && paddedPoolLayout(task, kind, workspace.bytes);
      // the plan's runs of whole planes [p0, p1)
      const runs = (args: (p0: number, p1: number) => number[]): number[][] =>
        plan.tiles.map(([p0, p1]) => args(p0 as number, p1 as number));
      if (padded) {
        // every output a vector step over a padded copy of the rows (the border columns took a
        // scalar path with bounds checks per tap: half the outputs of a 7×7 plane)
        const [rowLo, rowHi, colLo, colHi] = bounds as [number, number, number, number];
        const variant = PADDED + paddedPoolIndex(kind, sw as 1 | 2, task.kernel, [dh, dw]);
        const { Hb, Wp, bandOut, bandOffset } = padded;
        const rest = [OH, OW, KH, KW, sh, pt, pl, dh, dw, rowLo, rowHi, Hb, Wp, bandOut, bandOffset, colLo, colHi, sw];
        const tiles = runs((p0, p1) => [variant, X + p0 * H * W * 4, Y + p0 * OH * OW * 4, p1 - p0, H, W, ...rest]);
        runTiles(memory, ctx.parallel, poolPlanesTile, tiles);
        return;
      }
      // vector columns: every tap of ow..ow+3 (and, for stride 2, the odd float after the last) inside the row
      const vectorStride = sw === 2 ? 2 : 1;
      const owLo = Math.ceil(pl / sw);
      const owHi = Math.floor((W - sw + pl - (KW - 1) * dw) / sw);
      const variant = (kind === 'max' ? 0 : 2) + (vectorStride === 2 ? 1 : 0);
      const rest = [OW, KH, KW, sh, sw, pt, pl, dh, dw, owLo, owHi];
      const tiles = runs((p0, p1) => [variant, X + p0 * H * W * 4, Y + p0 * OH * OW * 4, p1 - p0, H, W, OH, ...rest, ...bounds]);
      runTiles(memory, ctx.parallel, poolPlanesTile, tiles);
    },
  });
}

const POOL_PLANES = 'simd.poolPlanes';
/** Tile variants from PADDED on run the padded-band kernels. */
const PADDED = 4;

/**
 * Tile: a run of whole planes of MaxPool/AveragePool; argument 0 picks max/avg × stride 1/2, of
 * the window kernels (0–3) or a padded-band kernel (PADDED + its index in PADDED_POOLS) with its buffers in this
 * thread's workspace.
 */
export const poolPlanesTile = tileFunction(POOL_PLANES, (memory, t) => {
  const kernels = simdKernels(memory);
  if (!kernels) throw new Error(`${POOL_PLANES} needs WebAssembly SIMD`);
  const [variant, ...args] = t as number[];
  if ((variant as number) < PADDED) {
    const run = [kernels.poolMaxS1, kernels.poolMaxS2, kernels.poolAvgS1, kernels.poolAvgS2][variant as number];
    if (!run) throw new Error(`${POOL_PLANES}: unknown variant ${variant}`);
    run(...args);
    return;
  }
  const pool = PADDED_POOLS[(variant as number) - PADDED];
  const run = pool && kernels[paddedPoolName(pool)];
  if (!pool || !run) throw new Error(`${POOL_PLANES}: unknown variant ${variant}`);
  const [x, y, planes, H, W, OH, OW, KH, KW, sh, pt, pl, dh, dw, rowLo, rowHi, Hb, Wp, bandOut, bandOffset, colLo, colHi, sw] =
    args as number[] as NumberTuple<23>;
  const workspace = threadWorkspace(memory);
  if (!workspace || workspace.bytes < bandOffset + Hb * Wp * 4) throw new Error(`${POOL_PLANES}: the thread workspace is too small`);
  if (pool.kind === 'avg') {
    // AveragePool's divisor per output column: its taps inside [colLo, colHi) (lanes past OW too)
    const counts = new Float32Array(memory.buffer, workspace.offset, Math.ceil(OW / 4) * 4);
    for (let ow = 0; ow < counts.length; ow++) {
      let n = 0;
      for (let kw = 0; kw < KW; kw++) {
        const iw = ow * sw - pl + kw * dw;
        if (iw >= colLo && iw < colHi) n++;
      }
      counts[ow] = n || 1;
    }
  }
  run(
    x,
    y,
    planes,
    H,
    W,
    OH,
    OW,
    KH,
    KW,
    sh,
    pt,
    pl,
    dh,
    dw,
    rowLo,
    rowHi,
    workspace.offset + bandOffset,
    Hb,
    Wp,
    bandOut,
    workspace.offset,
  );
});

/** GlobalMaxPool / GlobalAveragePool over float32 [N, C, ...spatial] in device memory. */
function simdGlobalPoolKernel(opType: string, kind: PoolKind, reference: KernelV1): KernelV1 {
  return defineKernel({
    opType,
    name: 'wasm-simd',
    dtypes: ['float32'],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      if (!memory || x?.type !== 'float32' || x.dims.length < 3 || !inMemory(memory, x)) return reference.compute(ctx);
      const kernels = simdKernels(memory);
      if (!kernels) return reference.compute(ctx);
      const planes = (x.dims[0] as number) * (x.dims[1] as number);
      const size = x.dims.slice(2).reduce((p, d) => p * d, 1);
      if (size === 0) return reference.compute(ctx);
      const y = ctx.output(0, [x.dims[0] as number, x.dims[1] as number, ...x.dims.slice(2).map(() => 1)], 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const run = kind === 'max' ? kernels.globalPoolMax : kernels.globalPoolAvg;
      run((x.data as Float32Array).byteOffset, (y.data as Float32Array).byteOffset, planes, size);
    },
  });
}

/** The 'wasm-simd' pooling kernels over the reference kernels `referenceOf` returns. */
export function simdPoolKernels(referenceOf: (opType: string) => KernelV1): KernelV1[] {
  return [
    simdPoolKernel('MaxPool', 'max', referenceOf('MaxPool')),
    simdPoolKernel('AveragePool', 'avg', referenceOf('AveragePool')),
    simdGlobalPoolKernel('GlobalMaxPool', 'max', referenceOf('GlobalMaxPool')),
    simdGlobalPoolKernel('GlobalAveragePool', 'avg', referenceOf('GlobalAveragePool')),
  ];
}
