import { tileEpilogue } from './tile-epilogue.js';
import { WORKSPACE_HEADER } from './conv-gemm-tiles.js';
import { GEMM_BIAS, GEMM_CLAMP, forEachGemmBlock } from './gemm-tile-module.js';
import { simdKernels } from './kernel-modules.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, tileFunction } from './tiles.js';
import { float32Of, int32Of } from './memory-views.js';

/** K rows per GEMM call: the K×8 floats one panel reads (scattered 32-byte runs) stay in L1. */
const KC = 256;
/** Rows of A per GEMM call (an MC×KC block of weights stays in L2). */
const MC = 128;
/** Floats of slack after the slab: the last panel of a row reads up to 7 columns past it. */
const SLACK = 16;

export const CONV_DIRECT = 'simd.convDirect';

/** Geometry of a stride-1 convolution read without im2col (see `directSlab`). */
export interface DirectGeometry {
  /** Padded slab row width and the number of output rows per slab band. */
  readonly width: number;
  readonly bandRows: number;
}

/**
 * Whether a stride-1 2-D convolution can run on `gemmIndirect` straight from a zero-padded slab of
 * input rows in the thread's workspace, and the slab's shape. Narrow outputs (OW < 16) stay on the
 * im2col path, whose panels span output rows.
 */
export function directSlab(
  cg: number,
  geometry: { H: number; W: number; OW: number; KH: number; KW: number; dh: number; dw: number; pl: number },
  workspaceBytes: number,
): DirectGeometry | undefined {
  const { W, OW, KH, KW, dh, dw, pl } = geometry;
  if (OW < 8) return undefined;
  const width = Math.max(W + pl, OW + (KW - 1) * dw);
  const budget = (workspaceBytes - WORKSPACE_HEADER - cg * KH * KW * 4) / 4 - SLACK;
  const bandRows = Math.floor(budget / (cg * width)) - (KH - 1) * dh;
  return bandRows >= 1 ? { width, bandRows } : undefined;
}

/**
 * Tile [g0, g1, m0, m1, r0, r1] of a stride-1 convolution: output channels [m0, m1) × output rows
 * [r0, r1) (a pointwise convolution: positions). A pointwise, unpadded convolution reads X in
 * place (row k of B is input channel k); a k×k one copies bands of input rows, zero-padded, into
 * the workspace and reads window row (c, kh, kw) at a fixed offset from each output row. Either
 * way B goes to `gemmIndirect` through a table of row offsets: no im2col.
 * Arguments: x, w, y, bias, batch, inC, outC, group, H, W, OH, OW, KH, KW, dh, dw, pt, pl,
 * width, bandRows (0: pointwise), g0, g1, m0, m1, r0, r1, lo, hi, then a generated epilogue's
 * tail (conv-epilogue.ts), run over each finished block of Y.
 */
export const convDirectTile = tileFunction(CONV_DIRECT, (memory, t) => {
  const a = t as number[];
  const [x, w, y, bias, batch, inC, outC, group, H, W, OH, OW, KH, KW, dh, dw, pt, pl, width, bandRows, g0, g1, m0, m1, r0, r1, lo, hi] =
    a as number[] as NumberTuple<28>;
  const kernels = simdKernels(memory);
  const workspace = threadWorkspace(memory);
  if (!kernels || !workspace) throw new Error(`${CONV_DIRECT} needs WebAssembly SIMD and a thread workspace`);
  const epilogue = tileEpilogue(memory, a, 28);
  const cg = inC / group;
  const mg = outC / group;
  const K = cg * KH * KW;
  const positions = OH * OW;
  const tmp = workspace.offset;
  const tableByte = workspace.offset + WORKSPACE_HEADER;
  const slabByte = tableByte + Math.ceil((K * 4) / 64) * 64;
  const words = int32Of(memory);
  const table = tableByte >> 2;
  const all = float32Of(memory);
  const last = (bias >= 0 ? GEMM_BIAS : 0) | (lo > Number.NEGATIVE_INFINITY || hi < Number.POSITIVE_INFINITY ? GEMM_CLAMP : 0);
  const gemm = (xBase: number, cols: number, yBase: number, g: number): void =>
    forEachGemmBlock(K, KC, m0, m1, MC, last, (rows, kc, pc, mc, flags) => {
      const m = g * mg + mc;
      const A = w + (m * K + pc) * 4;
      kernels.gemmIndirect(
        rows,
        cols,
        kc,
        A,
        K,
        xBase,
        tableByte + pc * 4,
        yBase + mc * positions * 4,
        positions,
        flags,
        bias + m * 4,
        lo,
        hi,
        tmp,
      );
    });

  if (bandRows === 0) {
    // pointwise: B row k is input channel k, read in place; positions [r0, r1)
    for (let k = 0; k < K; k++) words[table + k] = k * H * W;
    for (let g = g0; g < g1; g++)
      for (let n = 0; n < batch; n++) {
        gemm(x + ((n * inC + g * cg) * H * W + r0) * 4, r1 - r0, y + ((n * outC + g * mg) * positions + r0) * 4, g);
        epilogue?.run(n, g * mg + m0, g * mg + m1, r0, r1);
      }
    return;
  }

  const slabRows = bandRows + (KH - 1) * dh;
  for (let c = 0, k = 0; c < cg; c++)
    for (let kh = 0; kh < KH; kh++) for (let kw = 0; kw < KW; kw++) words[table + k++] = (c * slabRows + kh * dh) * width + kw * dw;
  const slab = slabByte / 4;
  for (let g = g0; g < g1; g++) {
    for (let n = 0; n < batch; n++) {
      const xg = x / 4 + (n * inC + g * cg) * H * W;
      for (let band = r0; band < r1; band += bandRows) {
        const rows = Math.min(bandRows, r1 - band);
        // input rows band - pt … band + rows - 1 - pt + (KH-1)·dh, each zero-padded to `width`
        for (let c = 0; c < cg; c++) {
          for (let r = 0; r < rows + (KH - 1) * dh; r++) {
            const dst = slab + (c * slabRows + r) * width;
            const ih = band - pt + r;
            if (ih < 0 || ih >= H) {
              all.fill(0, dst, dst + width);
              continue;
            }
            if (pl > 0) all.fill(0, dst, dst + pl);
            const src = xg + (c * H + ih) * W;
            all.copyWithin(dst + pl, src, src + W);
            if (pl + W < width) all.fill(0, dst + pl + W, dst + width);
          }
        }
        all.fill(0, slab + cg * slabRows * width, slab + cg * slabRows * width + SLACK);
        const yg = y + (n * outC + g * mg) * positions * 4;
        for (let r = 0; r < rows; r++) gemm(slabByte + r * width * 4, OW, yg + (band + r) * OW * 4, g);
        epilogue?.run(n, g * mg + m0, g * mg + m1, band * OW, (band + rows) * OW);
      }
    }
  }
});
