import {
  type HostTensor,
  type KernelContextV1,
  type KernelV1,
  type LinearMemory,
  type TileFunctionV1,
  TSGE_DOMAIN,
  TsgeError,
} from '@tsge/metadef';
import { FUSED_CONV } from '@tsge/ops/kernel-support';
import {
  applyEpilogue,
  captureOutput,
  windowGatherTable,
  convProblem,
  defineKernel,
  type ConvProblem,
} from '@tsge/kernels-js/kernel-support';
import { simdKernels } from './kernel-modules.js';
import { convDirectTile } from './conv-direct-tiles.js';
import { CONV_PLAN, ConvPath, chooseConv, planConvNode, recordedConvPlan } from './conv-plan.js';
import { convGemmTile } from './conv-gemm-tiles.js';
import { convPointwiseTile } from './conv-pointwise-tiles.js';
import { activationPass, convEpilogue, tileEpilogue } from './tile-epilogue.js';
import { scratchMemory } from './scratch-memory.js';
import { inMemory } from './simd-matmul.js';
import { threadWorkspace } from './thread-workspace.js';
import { tileFunction, runTiles, type NumberTuple } from './tiles.js';
import { float32Of } from './memory-views.js';

/** Output columns per staged panel of the other-rank path: keeps an im2col panel around 1 MiB. */
const PANEL_BYTES = 1 << 20;

/**
 * Conv on float32 with the SIMD kernels, split into tiles that idle threads can take
 * (`ctx.parallel`). Depthwise 2-D convolution runs the SIMD depthwise kernel over device memory,
 * tiled by channels. Any other 2-D convolution is a GEMM per group (conv-gemm-tiles.ts): im2col
 * blocks packed into the thread's workspace, weights read in place, results stored into Y with the
 * bias and a clamp (Relu, Clip) fused. Other ranks stage panels in a private scratch memory on the
 * calling thread.
 */
export function simdConvKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Conv',
    name: 'wasm-simd',
    dtypes: ['float32'],
    // splits its work into tiles through ctx.parallel
    parallel: true,
    plan: planConvNode,
    compute: (ctx: KernelContextV1) => void convolve(ctx, reference),
  });
}

/** The Conv view of each FusedConv context (executors reuse a node's context across runs). */
const innerContexts = new WeakMap<KernelContextV1, ReturnType<typeof captureOutput>>();

/**
 * tsge::FusedConv on the same paths: the activation is fused into the GEMM store or planned as a
 * pass after it, a generated epilogue runs in each tile (conv-epilogue.ts); only the reference
 * fallback needs them applied here. `reference` is the Conv reference.
 */
export function simdFusedConvKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: FUSED_CONV,
    domain: TSGE_DOMAIN,
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    plan: planConvNode,
    compute: (ctx: KernelContextV1) => {
      let inner = innerContexts.get(ctx);
      if (!inner) {
        inner = captureOutput(ctx, 'Conv', ctx.inputCount);
        innerContexts.set(ctx, inner);
      }
      inner.reset();
      if (convolve(inner.context, reference)) return;
      const y = inner.result();
      if (!y) throw TsgeError.of('TSGE-E4003', { reason: `${FUSED_CONV} ${ctx.nodeName}: Conv produced no output` });
      activationPass(ctx)?.(y.data as Float32Array);
      applyEpilogue(ctx, y.data as Float32Array, y.dims);
    },
  });
}

function fallback(ctx: KernelContextV1, reference: KernelV1): false {
  reference.compute(ctx);
  return false;
}

/**
 * A convolution's tile arguments (and activation pass) bound on its first run from its plan (the
 * compiler's, recorded on the node, or one made then for shapes known only at run time). Executors
 * reuse a node's kernel context across runs, and static models place its tensors at the same
 * offsets each time, so later runs skip the geometry and the argument lists (most of the JavaScript
 * cost of small layers). They apply again while the tensor offsets, input dims, thread count and the
 * output's offset are unchanged.
 */
interface BoundConv {
  readonly signature: readonly number[];
  readonly outDims: readonly number[];
  readonly yOffset: number;
  readonly tileFunction: TileFunctionV1;
  readonly tiles: readonly (readonly number[])[];
  readonly after: ((data: Float32Array) => void) | undefined;
}
const plans = new WeakMap<KernelContextV1, BoundConv>();

/** What must be equal for a context's plan to apply again: tensor offsets (epilogue inputs too), threads, input dims. */
function signatureOf(
  ctx: KernelContextV1,
  x: HostTensor,
  w: HostTensor,
  b: HostTensor | undefined,
  extra: readonly HostTensor[],
): number[] {
  const offset = (t: HostTensor): number => (t.data as Float32Array).byteOffset;
  return [offset(x), offset(w), b ? offset(b) : -1, ...extra.map(offset), ctx.parallel?.threads ?? 1, ...x.dims];
}

/** A FusedConv's epilogue inputs (after B); undefined when one is missing. */
function epilogueInputs(ctx: KernelContextV1): HostTensor[] | undefined {
  const extra: HostTensor[] = [];
  for (let i = 3; i < ctx.inputCount; i++) {
    const t = ctx.tensor(i);
    if (!t) return undefined;
    extra.push(t);
  }
  return extra;
}

/**
 * Whether `signature` (see `signatureOf`) still describes the context's tensors, compared in place:
 * this runs on every run of every convolution, on every thread.
 */
function signatureFits(
  signature: readonly number[],
  ctx: KernelContextV1,
  x: HostTensor,
  w: HostTensor,
  b: HostTensor | undefined,
): boolean {
  const offset = (t: HostTensor): number => (t.data as Float32Array).byteOffset;
  const extras = Math.max(0, ctx.inputCount - 3);
  const rank = x.dims.length;
  if (signature.length !== 4 + extras + rank || signature[0] !== offset(x) || signature[1] !== offset(w)) return false;
  if (signature[2] !== (b ? offset(b) : -1) || signature[3 + extras] !== (ctx.parallel?.threads ?? 1)) return false;
  for (let i = 0; i < extras; i++) {
    const t = ctx.tensor(3 + i);
    if (!t || signature[3 + i] !== offset(t)) return false;
  }
  for (let i = 0; i < rank; i++) if (signature[4 + extras + i] !== x.dims[i]) return false;
  return true;
}

/** Runs the context's plan when its output is still where it was planned; false when it is not. */
function runPlanned(ctx: KernelContextV1, memory: LinearMemory, plan: BoundConv): boolean {
  const data = ctx.output(0, plan.outDims, 'float32').data as Float32Array;
  if (data.buffer !== memory.buffer || data.byteOffset !== plan.yOffset) return false;
  runTiles(memory, ctx.parallel, plan.tileFunction, plan.tiles);
  plan.after?.(data);
  return true;
}

/** Remembers a plan for the context and runs it. */
function runAndRemember(ctx: KernelContextV1, memory: LinearMemory, plan: BoundConv, y: Float32Array): true {
  plans.set(ctx, plan);
  runTiles(memory, ctx.parallel, plan.tileFunction, plan.tiles);
  plan.after?.(y);
  return true;
}

/** Runs the convolution; returns whether the fused activation (if any) was applied. */
function convolve(ctx: KernelContextV1, reference: KernelV1): boolean {
  const x = ctx.tensor(0);
  const w = ctx.tensor(1);
  const b = ctx.tensor(2);
  const memory = ctx.memory;
  if (!x || !w || !memory || x.type !== 'float32' || w.type !== 'float32') return fallback(ctx, reference);
  // the plan made on an earlier run, found without building its signature
  const made = plans.get(ctx);
  if (made && signatureFits(made.signature, ctx, x, w, b) && runPlanned(ctx, memory, made)) return true;
  if (!inMemory(memory, x, w) || (b && !inMemory(memory, b))) return fallback(ctx, reference);
  const extra = epilogueInputs(ctx);
  if (!extra || extra.some((t) => t.type !== 'float32' || !inMemory(memory, t))) return fallback(ctx, reference);
  const signature = signatureOf(ctx, x, w, b, extra);
  const p = convProblem(ctx, x, w);
  const threads = ctx.parallel?.threads ?? 1;
  const workspace = threadWorkspace(memory);
  const recorded = ctx.attrs.has(CONV_PLAN) ? ctx.attrs.ints(CONV_PLAN) : undefined;
  // the compiler's plan for static shapes (checked against this task), else one made now
  const plan = recorded ? recordedConvPlan(ctx.nodeName, recorded, p, threads, workspace?.bytes) : chooseConv(p, threads, workspace?.bytes);
  if (plan.path === ConvPath.reference) return fallback(ctx, reference);
  if (plan.path === ConvPath.depthwise) {
    const planned = depthwisePlan(ctx, p, memory, signature, plan.tiles);
    if (!planned) return fallback(ctx, reference);
    return runAndRemember(ctx, memory, planned.plan, planned.y);
  }
  const mg = p.outChannels / p.group;
  const cg = p.inChannels / p.group;
  const g = p.geometry;
  const outSize = g.outDims.reduce((s, d) => s * d, 1);
  const inSize = g.inDims.reduce((s, d) => s * d, 1);
  const kSize = g.kernel.reduce((s, d) => s * d, 1);
  const y = ctx.output(0, [p.batch, p.outChannels, ...g.outDims], 'float32');
  if (!inMemory(memory, y)) return fallback(ctx, reference);
  const X = x.data as Float32Array;
  const W = w.data as Float32Array;
  const Y = y.data as Float32Array;
  const bias = b ? (b.data as Float32Array) : undefined;

  if (plan.path !== ConvPath.staged) {
    // a GEMM path needs the thread workspace it was planned for
    if (!workspace) return fallback(ctx, reference);
    const [H, Wd] = g.inDims as [number, number];
    const [OH, OW] = g.outDims as [number, number];
    const epilogue = convEpilogue(ctx, Y, y.dims);
    const head = [X.byteOffset, W.byteOffset, Y.byteOffset, bias ? bias.byteOffset : -1, p.batch, p.inChannels, p.outChannels, p.group];
    const [KH, KW] = g.kernel as [number, number];
    const [sh, sw] = g.strides as [number, number];
    const [dh, dw] = g.dilations as [number, number];
    const [pt, pl] = g.padsBegin as [number, number];
    const tail = [epilogue.lo, epilogue.hi, ...epilogue.tail];
    const bound = { signature, outDims: y.dims, yOffset: Y.byteOffset, after: epilogue.after };
    if (plan.path === ConvPath.pointwisePanels) {
      const args = [...head, outSize];
      return runAndRemember(
        ctx,
        memory,
        { ...bound, tileFunction: convPointwiseTile, tiles: plan.tiles.map((t) => [...args, ...t, ...tail]) },
        Y,
      );
    }
    if (plan.path === ConvPath.direct || plan.path === ConvPath.pointwise) {
      const args = [...head, H, Wd, OH, OW, KH, KW, dh, dw, pt, pl, plan.slab?.width ?? 0, plan.slab?.bandRows ?? 0];
      return runAndRemember(
        ctx,
        memory,
        { ...bound, tileFunction: convDirectTile, tiles: plan.tiles.map((t) => [...args, ...t, ...tail]) },
        Y,
      );
    }
    const geometry = [H, Wd, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl];
    const tiles = plan.tiles.map((t) => [...head, ...geometry, ...t, ...tail]);
    return runAndRemember(ctx, memory, { ...bound, tileFunction: convGemmTile, tiles }, Y);
  }

  const kDim = cg * kSize;
  // other ranks (1-D, 3-D): panels of output positions through the gather table, on this thread
  const panel = Math.max(4, Math.min(outSize, Math.floor(PANEL_BYTES / (4 * kDim)) & ~3));
  const table = windowGatherTable(g);
  const padded = (panel + 7) & ~7;
  const wBytes = mg * kDim * 4;
  const colBytes = kDim * padded * 4;
  const outBytes = mg * padded * 4;
  // 128 bytes for gemmTile's edge tile first, then the staged operands
  const scratch = scratchMemory(192 + wBytes + colBytes + outBytes + 192);
  const kernels = scratch && simdKernels(scratch);
  if (!scratch || !kernels) return fallback(ctx, reference);
  const wOffset = 192;
  const colOffset = align64(wOffset + wBytes);
  const outOffset = align64(colOffset + colBytes);
  const sw = new Float32Array(scratch.buffer, wOffset, mg * kDim);
  const col = new Float32Array(scratch.buffer, colOffset, kDim * padded);
  const out = new Float32Array(scratch.buffer, outOffset, mg * padded);
  for (let grp = 0; grp < p.group; grp++) {
    sw.set(W.subarray(grp * mg * kDim, (grp + 1) * mg * kDim));
    for (let n = 0; n < p.batch; n++) {
      const xBase = (n * p.inChannels + grp * cg) * inSize;
      const yBase = (n * p.outChannels + grp * mg) * outSize;
      for (let o0 = 0; o0 < outSize; o0 += panel) {
        const cols = Math.min(panel, outSize - o0);
        const width = (cols + 7) & ~7;
        gatherPanel(col, X, table, xBase, cg, kSize, inSize, outSize, o0, cols);
        kernels.gemmTile(mg, cols, kDim, wOffset, kDim, colOffset, kDim * 32, outOffset, width, 0, 0, 0, 0, 64);
        for (let m = 0; m < mg; m++) {
          const bv = bias ? (bias[grp * mg + m] as number) : 0;
          const dst = yBase + m * outSize + o0;
          const src = m * width;
          for (let o = 0; o < cols; o++) Y[dst + o] = (out[src + o] as number) + bv;
        }
      }
    }
  }
  return false;
}

/** Any-rank im2col panel through the gather table, packed: row (c, k) = X[c] at the window offsets of outputs o0.. */
function gatherPanel(
  col: Float32Array,
  X: Float32Array,
  table: Int32Array,
  xBase: number,
  channels: number,
  kSize: number,
  inSize: number,
  outSize: number,
  o0: number,
  cols: number,
): void {
  const K = channels * kSize;
  for (let c = 0; c < channels; c++) {
    const xc = xBase + c * inSize;
    for (let k = 0; k < kSize; k++) {
      const krow = c * kSize + k;
      const t = k * outSize + o0;
      for (let o = 0; o < cols; o++) {
        const idx = table[t + o] as number;
        col[((o >> 3) * K + krow) * 8 + (o & 7)] = idx >= 0 ? (X[xc + idx] as number) : 0;
      }
    }
  }
}

function align64(n: number): number {
  return (n + 63) & ~63;
}

/** The tiles of a depthwise 2-D convolution (one filter per channel) straight over device memory. */
function depthwisePlan(
  ctx: KernelContextV1,
  p: ConvProblem,
  memory: LinearMemory,
  signature: readonly number[],
  channelTiles: readonly (readonly number[])[],
): { plan: BoundConv; y: Float32Array } | undefined {
  const kernels = simdKernels(memory);
  const g = p.geometry;
  const y = ctx.output(0, [p.batch, p.outChannels, ...g.outDims], 'float32');
  const x = ctx.tensor(0);
  const w = ctx.tensor(1);
  const b = ctx.tensor(2);
  if (!kernels || !x || !w || !inMemory(memory, y)) return undefined;
  const [H, W] = g.inDims as [number, number];
  const [OH, OW] = g.outDims as [number, number];
  const [KH, KW] = g.kernel as [number, number];
  const [sh, sw] = g.strides as [number, number];
  const [dh, dw] = g.dilations as [number, number];
  const [pt, pl] = g.padsBegin as [number, number];
  // columns whose whole window is inside the row: ow - pl >= 0 and ow - pl + (KW-1)*dw <= W-1 (stride 1)
  const owLo = pl;
  const owHi = W - 1 + pl - (KW - 1) * dw;
  const X = x.data as Float32Array;
  const Wt = w.data as Float32Array;
  const Y = y.data as Float32Array;
  const biasByte = b ? (b.data as Float32Array).byteOffset : -1;
  // the depthwise kernel stores no clamp: an activation or epilogue runs per channel plane, or after
  const epilogue = convEpilogue(ctx, Y, y.dims, false);
  const tiles: number[][] = [];
  for (let n = 0; n < p.batch; n++) {
    // the plan's tiles are channel ranges [c0, c1) (entries 2 and 3), the same for every image
    for (const [, , c0, c1] of channelTiles as NumberTuple<6>[]) {
      const channel = (n * p.outChannels + c0) * 4;
      tiles.push([
        X.byteOffset + channel * H * W,
        Wt.byteOffset + c0 * KH * KW * 4,
        Y.byteOffset + channel * OH * OW,
        biasByte < 0 ? -1 : biasByte + c0 * 4,
        c1 - c0,
        H,
        W,
        OH,
        OW,
        KH,
        KW,
        sh,
        sw,
        pt,
        pl,
        dh,
        dw,
        owLo,
        owHi,
        n,
        c0,
        ...epilogue.tail,
      ]);
    }
  }
  const plan = { signature, outDims: y.dims, yOffset: Y.byteOffset, tileFunction: depthwiseTile, tiles, after: epilogue.after };
  return { plan, y: Y };
}

const DEPTHWISE = 'simd.depthwise';

/**
 * Tile: `count` consecutive channels of a depthwise convolution (addresses of the first one,
 * channel c0 of image n), each plane followed by the generated epilogue when there is one.
 */
export const depthwiseTile = tileFunction(DEPTHWISE, (memory, t) => {
  const [x, w, y, bias, count, H, W, OH, OW, KH, KW, sh, sw, pt, pl, dh, dw, owLo, owHi, n, c0] = t as number[] as NumberTuple<21>;
  const epilogue = tileEpilogue(memory, t, 21);
  const kernels = simdKernels(memory);
  if (!kernels) throw new Error('simd.depthwise needs WebAssembly SIMD');
  const all = bias >= 0 ? float32Of(memory) : undefined;
  // square filters of 3 or 5, column stride 1 or 2 (any row stride), no dilation: unrolled kernels
  const fast = KH === KW && dh === 1 && dw === 1 ? kernels[`depthwise${KH}s${sw}` as `depthwise${number}s${number}`] : undefined;
  const fastLo = Math.ceil(pl / sw);
  const fastHi = Math.floor((W - 1 + pl - (KW - 1)) / sw);
  // with a workspace, each plane is first copied there with its columns zero-padded, so every step
  // is a vector step, and bands of output rows run on the filter rows that reach the plane's rows
  // (the vertical padding is neither stored nor multiplied): one call for the tile
  const workspace = fast ? threadWorkspace(memory) : undefined;
  const Wp = Math.max(W + pl, (OW - 1) * sw + KW) + 8;
  // column stride 2: the padded plane split into even and odd columns (rows of Wh, a multiple
  // of 4), which the `s2x` kernels read with one plain load a tap
  const Wr = sw === 2 ? (((Wp + 1) >> 1) + 3) & ~3 : Wp;
  const half = sw === 2 ? H * Wr * 4 : 0;
  if (workspace && (sw === 2 ? 2 * half : H * Wr * 4) + 64 <= workspace.bytes) {
    const planes = kernels[`depthwise${KH}s${sw}planes` as `depthwise${number}s${number}planes`];
    planes(x, w, y, bias, count, H, W, OH, OW, sh, pt, pl, workspace.offset, Wr, half);
  } else
    for (let c = 0; c < count; c++) {
      const bv = all ? (all[bias / 4 + c] as number) : 0;
      if (fast) {
        fast(x + c * H * W * 4, w + c * KH * KW * 4, y + c * OH * OW * 4, bv, H, W, OH, OW, pt, pl, fastLo, fastHi, sh, 0);
        continue;
      }
      kernels.depthwise(
        x + c * H * W * 4,
        w + c * KH * KW * 4,
        y + c * OH * OW * 4,
        bv,
        H,
        W,
        OH,
        OW,
        KH,
        KW,
        sh,
        sw,
        pt,
        pl,
        dh,
        dw,
        owLo,
        owHi,
      );
    }
  // the tile's planes (a few channels) are still in cache
  epilogue?.run(n, c0, c0 + count, 0, OH * OW);
});
