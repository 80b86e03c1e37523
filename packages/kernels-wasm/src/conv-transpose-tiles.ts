import { WORKSPACE_HEADER } from './conv-gemm-tiles.js';
import { convTransposeSpread } from './conv-transpose-spread-module.js';
import { GEMM_BIAS } from './gemm-tile-module.js';
import { simdKernels } from './kernel-modules.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, tileFunction, splitRange } from './tiles.js';
import { float32Of } from './memory-views.js';

export const CONV_TRANSPOSE_TILES = 'simd.convTransposeTiles';

/** Workspace floats a tile needs for Wᵀ of one group, the bias per GEMM row and at least one input row of results. */
export function convTransposeFits(rows: number, cg: number, W: number, workspaceBytes: number): boolean {
  return (rows * cg + rows + rows * W) * 4 + WORKSPACE_HEADER + 3 * 64 <= workspaceBytes;
}

/** Tiles [grp, n, h0, h1] of a non-overlapping ConvTranspose (stride = kernel), split by input rows. */
export function convTransposeTiles(group: number, batch: number, H: number, rowWork: number, threads: number): number[][] {
  const tiles: number[][] = [];
  for (let grp = 0; grp < group; grp++)
    for (let n = 0; n < batch; n++) for (const [h0, h1] of splitRange(H, threads, 1, rowWork)) tiles.push([grp, n, h0, h1]);
  return tiles;
}

/**
 * Tile of a ConvTranspose whose stride equals its kernel (no pads, no dilation): every output is
 * one tap, so a block of input rows [h0, h1) maps to output rows [h0·KH, h1·KH) alone. Wᵀ of the
 * group and the bias of each GEMM row go to this thread's workspace, `gemmIndirect` computes
 * col = Wᵀ·X + bias for a chunk of input positions (X read in place), and `convTransposeSpread`
 * spreads the col rows over the output grid.
 * Arguments: x, w, y, bias (-1: none), channels, outChannels, group, H, W, KH, KW, then grp, n, h0, h1.
 */
export const convTransposeTile = tileFunction(CONV_TRANSPOSE_TILES, (memory, t) => {
  const [x, w, y, bias, channels, outChannels, group, H, W, KH, KW, grp, n, h0, h1] = t as number[] as NumberTuple<15>;
  const kernels = simdKernels(memory);
  const spread = convTransposeSpread(memory);
  const workspace = threadWorkspace(memory);
  if (!kernels || !spread || !workspace) throw new Error(`${CONV_TRANSPOSE_TILES} needs WebAssembly SIMD and a thread workspace`);
  const cg = channels / group;
  const mg = outChannels / group;
  const kSize = KH * KW;
  const rows = mg * kSize;
  const all = float32Of(memory);
  const tableByte = workspace.offset + WORKSPACE_HEADER;
  const wtByte = tableByte + Math.ceil((cg * 4) / 64) * 64;
  const biasByte = wtByte + Math.ceil((rows * cg * 4) / 64) * 64;
  const colByte = biasByte + Math.ceil((rows * 4) / 64) * 64;
  const chunkRows = Math.max(1, Math.floor((workspace.offset + workspace.bytes - colByte) / 4 / (rows * W + 8)));
  const table = new Int32Array(memory.buffer, tableByte, cg);
  for (let c = 0; c < cg; c++) table[c] = c * H * W;
  // Wᵀ[r][c] = W[grp·cg + c][r] (r = (m, kh, kw))
  const wt = wtByte / 4;
  const wBase = w / 4 + grp * cg * rows;
  for (let c = 0; c < cg; c++) for (let r = 0; r < rows; r++) all[wt + r * cg + c] = all[wBase + c * rows + r] as number;
  // every GEMM row (m, kh, kw) adds the bias of output channel m
  if (bias >= 0) for (let r = 0; r < rows; r++) all[biasByte / 4 + r] = all[bias / 4 + grp * mg + Math.floor(r / kSize)] as number;
  const flags = bias >= 0 ? GEMM_BIAS : 0;
  const OW = W * KW;
  const plane = H * KH * OW * 4;
  const xBase = x + (n * channels + grp * cg) * H * W * 4;
  const yBase = y + (n * outChannels + grp * mg) * plane;
  for (let hc = h0; hc < h1; hc += chunkRows) {
    const hr = Math.min(chunkRows, h1 - hc);
    const cols = hr * W;
    kernels.gemmIndirect(rows, cols, cg, wtByte, cg, xBase + hc * W * 4, tableByte, colByte, cols, flags, biasByte, 0, 0, workspace.offset);
    spread(colByte, yBase + hc * KH * OW * 4, W, hr, KH, KW, mg, OW, plane);
  }
});
