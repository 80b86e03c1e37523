import { GEMM_BIAS, GEMM_CLAMP, GEMM_ROW_BLOCK, forEachGemmBlock } from './gemm-tile-module.js';
import { tileEpilogue } from './tile-epilogue.js';
import { simdKernels } from './kernel-modules.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, threadPieces, tileFunction } from './tiles.js';

/** Workspace bytes before the panels: 128 for gemmTile's edge tile, 64 for im2col's lane table. */
export const WORKSPACE_HEADER = 256;
/** K rows per GEMM call: a KC×8 panel of B (16 KiB) stays in L1. */
const KC = 512;
/** Rows of A per GEMM call: an MC×KC block of the weights (256 KiB) stays in L2. */
const MC = 128;
/**
 * Packed B blocks up to this size stay in L1 across row blocks, so the GEMM runs one register row
 * block (4 rows) at a time over all their panels and C is written as contiguous row segments.
 * Panel-outer order stores 4×8 tiles down all MC rows of C; with a small K those stores dominate,
 * and a 96×96 plane (rows 9·4096 bytes apart, on the same L1 sets) ran 16→96 channels at 4.3
 * GFLOP/s against 7.0 this way (movenet's largest pointwise conv; other shapes unchanged).
 */
const SMALL_B_BYTES = 48 * 1024;
/** Columns per staged im2col block (also bounded by the workspace). */
const MAX_NC = 512;
/** Below this many multiply-adds a convolution is one tile (~25 µs of one thread: about what handing half over costs). */
const MIN_SPLIT_WORK = 1 << 19;
/** Multiply-adds a thread takes per tile before the split adds a round of tiles (~200 µs). */
const TILE_WORK = 1 << 22;

export const CONV_GEMM = 'simd.convGemm';

/**
 * Tiles [g0, g1, m0, m1, u0, u1] of a convolution as a GEMM per group: output channels [m0, m1)
 * (within the group) × units [u0, u1) (output positions, or output rows). Grouped convolutions
 * split by groups; others by units (multiples of `granule`, at least `minUnits` per tile) and, when
 * units are few, by output channels. `unitWork` is the multiply-adds of one unit and channel.
 */
export function convTiles(
  group: number,
  mg: number,
  units: number,
  unitWork: number,
  threads: number,
  granule = 8,
  minUnits = 32,
): number[][] {
  const pieces = threadPieces(group * mg * units * unitWork, threads, MIN_SPLIT_WORK, TILE_WORK);
  const tiles: number[][] = [];
  if (group > 1) {
    const size = Math.ceil(group / Math.min(pieces, group));
    for (let g = 0; g < group; g += size) tiles.push([g, Math.min(group, g + size), 0, mg, 0, units]);
    return tiles;
  }
  const nPieces = Math.max(1, Math.min(pieces, Math.ceil(units / minUnits)));
  const mPieces = Math.max(1, Math.min(Math.ceil(pieces / nPieces), Math.ceil(mg / 16)));
  const nSize = Math.ceil(units / nPieces / granule) * granule;
  const mSize = Math.ceil(mg / mPieces / 4) * 4;
  for (let o = 0; o < units; o += nSize)
    for (let m = 0; m < mg; m += mSize) tiles.push([0, 1, m, Math.min(mg, m + mSize), o, Math.min(units, o + nSize)]);
  return tiles;
}

/**
 * Tile: im2col blocks of the tile's positions packed into this thread's workspace, then a blocked
 * GEMM reading the weights in place and storing into Y with the bias and clamp epilogue; a
 * generated epilogue runs over each block of Y as soon as it is complete.
 * Arguments: x, w, y, bias (byte addresses; bias -1 when absent), batch, inC, outC, group,
 * H, W, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl, g0, g1, m0, m1, o0, o1, lo, hi, then the
 * epilogue's tail (conv-epilogue.ts).
 */
export const convGemmTile = tileFunction(CONV_GEMM, (memory, t) => {
  const a = t as number[];
  const [x, w, y, bias, batch, inC, outC, group, H, W, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl, g0, g1, m0, m1, o0, o1, lo, hi] =
    a as number[] as NumberTuple<28>;
  const kernels = simdKernels(memory);
  const workspace = threadWorkspace(memory);
  if (!kernels || !workspace) throw new Error(`${CONV_GEMM} needs WebAssembly SIMD and a thread workspace`);
  const epilogue = tileEpilogue(memory, a, 28);
  const cg = inC / group;
  const mg = outC / group;
  const K = cg * KH * KW;
  const positions = OH * OW;
  const tmp = workspace.offset;
  const table = workspace.offset + 128;
  const col = workspace.offset + WORKSPACE_HEADER;
  const nc = Math.min(MAX_NC, Math.floor((workspace.bytes - WORKSPACE_HEADER) / (K * 32)) * 8);
  const clamp = lo > Number.NEGATIVE_INFINITY || hi < Number.POSITIVE_INFINITY ? GEMM_CLAMP : 0;
  const last = (bias >= 0 ? GEMM_BIAS : 0) | clamp;
  for (let g = g0; g < g1; g++) {
    for (let n = 0; n < batch; n++) {
      const xg = x + (n * inC + g * cg) * H * W * 4;
      const yg = y + (n * outC + g * mg) * positions * 4;
      for (let oc = o0; oc < o1; oc += nc) {
        const cols = Math.min(nc, o1 - oc);
        kernels.im2colPanels(xg, col, cg, H, W, OW, KH, KW, sh, sw, dh, dw, pt, pl, oc, cols, K, table);
        forEachGemmBlock(K, KC, m0, m1, K * cols * 4 <= SMALL_B_BYTES ? GEMM_ROW_BLOCK : MC, last, (rows, kc, pc, mc, flags) => {
          const m = g * mg + mc;
          const A = w + (m * K + pc) * 4;
          const C = yg + (mc * positions + oc) * 4;
          kernels.gemmTile(rows, cols, kc, A, K, col + pc * 32, K * 32, C, positions, flags, bias + m * 4, lo, hi, tmp);
        });
        epilogue?.run(n, g * mg + m0, g * mg + m1, oc, oc + cols);
      }
    }
  }
});
