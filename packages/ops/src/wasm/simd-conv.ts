import type { KernelContextV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { windowGatherTable } from '../common/nn-conv-geometry.js';
import { convProblem } from '../nn/conv.js';
import { defineKernel } from '../define.js';
import type { ConvProblem } from '../nn/conv.js';
import { simdKernels } from './kernel-modules.js';
import { scratchMemory } from './scratch-memory.js';
import { gemmRowTiles, inMemory } from './simd-matmul.js';
import { registerTileFunction, runTiles, splitRange } from './tiles.js';

/** Output columns per staged panel: keeps an im2col panel around 1 MiB so it stays in L2. */
const PANEL_BYTES = 1 << 20;

/**
 * Conv on float32 with the SIMD kernels, split into tiles that idle threads can take
 * (`ctx.parallel`). A 1×1, stride-1, unpadded convolution (group 1) is a GEMM per image straight
 * over device memory (W[Cout×Cin] · X[Cin×HW]), tiled by output channels. Depthwise 2-D convolution
 * runs the SIMD depthwise kernel over device memory, tiled by channels. Any other 2-D convolution is
 * tiled by output rows; a tile stages panels in its thread's private scratch memory (the group's
 * weights, a packed im2col panel, the GEMM result) and copies result rows out with the bias.
 * Other ranks stage the same way on the calling thread. Groups with 2–3 output channels stay on the
 * reference kernel.
 */
export function simdConvKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Conv',
    name: 'wasm-simd',
    dtypes: ['float32'],
    // splits its work into tiles through ctx.parallel
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const x = ctx.tensor(0);
      const w = ctx.tensor(1);
      const b = ctx.tensor(2);
      const memory = ctx.memory;
      if (!x || !w || !memory || x.type !== 'float32' || w.type !== 'float32') return reference.compute(ctx);
      const p = convProblem(ctx, x, w);
      const mg = p.outChannels / p.group;
      const cg = p.inChannels / p.group;
      if (!inMemory(memory, x, w) || (b && !inMemory(memory, b))) return reference.compute(ctx);
      if (mg === 1 && cg === 1 && x.dims.length === 4) return depthwise(ctx, p, memory, reference);
      if (mg < 4) return reference.compute(ctx);
      const g = p.geometry;
      const outSize = g.outDims.reduce((s, d) => s * d, 1);
      const inSize = g.inDims.reduce((s, d) => s * d, 1);
      const kSize = g.kernel.reduce((s, d) => s * d, 1);
      const y = ctx.output(0, [p.batch, p.outChannels, ...g.outDims], 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const threads = ctx.parallel?.threads ?? 1;
      const X = x.data as Float32Array;
      const W = w.data as Float32Array;
      const Y = y.data as Float32Array;
      const bias = b ? (b.data as Float32Array) : undefined;

      const pointwise =
        kSize === 1 && p.group === 1 && inSize === outSize && g.strides.every((s) => s === 1) && g.padsBegin.every((q) => q === 0);
      if (pointwise) {
        const tiles: number[][] = [];
        for (let n = 0; n < p.batch; n++) {
          const shape = { m: p.outChannels, n: outSize, k: p.inChannels };
          tiles.push(
            ...gemmRowTiles(
              shape,
              { data: W, offset: 0, ld: p.inChannels },
              { data: X, offset: n * p.inChannels * inSize, ld: inSize },
              { data: Y, offset: n * p.outChannels * outSize, ld: outSize },
              threads,
            ),
          );
        }
        runTiles(memory, ctx.parallel, 'simd.gemmRows', tiles);
        if (bias) addBias(Y, bias, p.batch, p.outChannels, outSize);
        return;
      }

      if (g.inDims.length === 2) {
        // 2-D: tiles of whole output rows per (group, image), each staged in its thread's scratch
        const [H, Wd] = g.inDims as [number, number];
        const [OH, OW] = g.outDims as [number, number];
        const kDim2 = cg * kSize;
        const panelRows = Math.max(1, Math.min(OH, Math.floor(PANEL_BYTES / (4 * kDim2 * OW))));
        const tiles: number[][] = [];
        const biasByte = bias ? bias.byteOffset : -1;
        for (let grp = 0; grp < p.group; grp++) {
          for (let n = 0; n < p.batch; n++) {
            for (const [r0, r1] of splitRange(OH, threads, panelRows, OW * kDim2 * mg)) {
              // prettier-ignore
              tiles.push([
                X.byteOffset,
                W.byteOffset,
                Y.byteOffset,
                biasByte,
                grp,
                n,
                p.inChannels,
                p.outChannels,
                p.group,
                H,
                Wd,
                OH,
                OW,
                ...(g.kernel as number[]),
                ...(g.strides as number[]),
                ...(g.dilations as number[]),
                ...(g.padsBegin as number[]),
                r0,
                r1 - r0,
                panelRows,
              ]);
            }
          }
        }
        runTiles(memory, ctx.parallel, CONV_ROWS, tiles);
        return;
      }

      const kDim = cg * kSize;
      // other ranks (1-D, 3-D): panels of output positions through the gather table, on this thread
      const panel = Math.max(4, Math.min(outSize, Math.floor(PANEL_BYTES / (4 * kDim)) & ~3));
      const table = windowGatherTable(g);
      const padded = (panel + 7) & ~7;
      const wBytes = mg * kDim * 4;
      const colBytes = kDim * padded * 4;
      const outBytes = mg * padded * 4;
      const scratch = scratchMemory(64 + wBytes + colBytes + outBytes + 192);
      const kernels = scratch && simdKernels(scratch);
      if (!scratch || !kernels) return reference.compute(ctx);
      const wOffset = 64;
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
            kernels.gemmPacked(mg, width, kDim, wOffset, kDim, colOffset, 0, outOffset, width, 0);
            for (let m = 0; m < mg; m++) {
              const bv = bias ? (bias[grp * mg + m] as number) : 0;
              const dst = yBase + m * outSize + o0;
              const src = m * width;
              for (let o = 0; o < cols; o++) Y[dst + o] = (out[src + o] as number) + bv;
            }
          }
        }
      }
    },
  });
}

/**
 * Packed B layout of the staged GEMM: column o of row k lives at ((o >> 3) * K + k) * 8 + (o & 7),
 * i.e. panels of 8 columns, each a contiguous K×8 block.
 */

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

function addBias(y: Float32Array, bias: Float32Array, batch: number, channels: number, size: number): void {
  for (let n = 0; n < batch; n++) {
    for (let c = 0; c < channels; c++) {
      const bv = bias[c] as number;
      if (bv === 0) continue;
      const base = (n * channels + c) * size;
      for (let i = 0; i < size; i++) y[base + i] = (y[base + i] as number) + bv;
    }
  }
}

/** Depthwise 2-D convolution (one filter per channel) straight over device memory. */
function depthwise(ctx: KernelContextV1, p: ConvProblem, memory: LinearMemory, reference: KernelV1): void {
  const kernels = simdKernels(memory);
  const g = p.geometry;
  const y = ctx.output(0, [p.batch, p.outChannels, ...g.outDims], 'float32');
  const x = ctx.tensor(0);
  const w = ctx.tensor(1);
  const b = ctx.tensor(2);
  if (!kernels || !x || !w || !inMemory(memory, y)) {
    reference.compute(ctx);
    return;
  }
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
  const tiles: number[][] = [];
  for (let n = 0; n < p.batch; n++) {
    for (const [c0, c1] of splitRange(p.outChannels, ctx.parallel?.threads ?? 1, 1, OH * OW * KH * KW)) {
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
      ]);
    }
  }
  runTiles(memory, ctx.parallel, DEPTHWISE, tiles);
}

const DEPTHWISE = 'simd.depthwise';

/** Tile: `count` consecutive channels of a depthwise convolution (addresses of the first one). */
registerTileFunction(DEPTHWISE, (memory, t) => {
  const [x, w, y, bias, count, H, W, OH, OW, KH, KW, sh, sw, pt, pl, dh, dw, owLo, owHi] = t as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const kernels = simdKernels(memory);
  if (!kernels) throw new Error('simd.depthwise needs WebAssembly SIMD');
  const all = bias >= 0 ? new Float32Array(memory.buffer) : undefined;
  for (let c = 0; c < count; c++) {
    const bv = all ? (all[bias / 4 + c] as number) : 0;
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
});

const CONV_ROWS = 'simd.convRows';

/**
 * Tile: output rows [oh0, oh0+rows) of image n, group grp of a 2-D convolution, staged panel by
 * panel in this thread's scratch memory (weights of the group, packed im2col panel, GEMM result)
 * and written to Y in device memory with the bias. Arguments are byte addresses and geometry.
 */
registerTileFunction(CONV_ROWS, (memory, t) => {
  const [xByte, wByte, yByte, biasByte, grp, n, inC, outC, group, H, Wd, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl, oh0, rows, panelRows] =
    t as number[] as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
  const cg = inC / group;
  const mg = outC / group;
  const kDim = cg * KH * KW;
  const padded = (panelRows * OW + 7) & ~7;
  const wBytes = mg * kDim * 4;
  // the input rows this tile reads (padding rows are not copied; the im2col reads them as 0)
  const ihLo = Math.max(0, oh0 * sh - pt);
  const ihHi = Math.max(ihLo, Math.min(H, (oh0 + rows - 1) * sh - pt + (KH - 1) * dh + 1));
  const slabRows = ihHi - ihLo;
  const slabBytes = cg * slabRows * Wd * 4;
  const scratch = scratchMemory(64 + wBytes + kDim * padded * 4 + mg * padded * 4 + slabBytes + 256);
  const kernels = scratch && simdKernels(scratch);
  if (!scratch || !kernels) throw new Error('simd.convRows needs WebAssembly SIMD');
  const all = new Float32Array(memory.buffer);
  const wOffset = 64;
  const colOffset = align64(wOffset + wBytes);
  const outOffset = align64(colOffset + kDim * padded * 4);
  const slabOffset = align64(outOffset + mg * padded * 4);
  const sw32 = new Float32Array(scratch.buffer, wOffset, mg * kDim);
  const out = new Float32Array(scratch.buffer, outOffset, mg * padded);
  const slab = new Float32Array(scratch.buffer, slabOffset, cg * slabRows * Wd);
  const wBase = wByte / 4 + grp * mg * kDim;
  sw32.set(all.subarray(wBase, wBase + mg * kDim));
  const xBase = xByte / 4 + (n * inC + grp * cg) * H * Wd;
  for (let c = 0; c < cg; c++) {
    const from = xBase + (c * H + ihLo) * Wd;
    slab.set(all.subarray(from, from + slabRows * Wd), c * slabRows * Wd);
  }
  const yBase = yByte / 4 + (n * outC + grp * mg) * OH * OW;
  const bias = biasByte >= 0 ? biasByte / 4 + grp * mg : -1;
  for (let r = oh0; r < oh0 + rows; r += panelRows) {
    const rr = Math.min(panelRows, oh0 + rows - r);
    const cols = rr * OW;
    const width = (cols + 7) & ~7;
    kernels.im2colPacked(slabOffset, colOffset, cg, slabRows, Wd, OW, KH, KW, sh, sw, dh, dw, pt, pl, ihLo, ihHi, r, rr, kDim);
    kernels.gemmPacked(mg, width, kDim, wOffset, kDim, colOffset, 0, outOffset, width, 0);
    for (let m = 0; m < mg; m++) {
      const bv = bias >= 0 ? (all[bias + m] as number) : 0;
      const dst = yBase + m * OH * OW + r * OW;
      const src = m * width;
      for (let o = 0; o < cols; o++) all[dst + o] = (out[src + o] as number) + bv;
    }
  }
});
