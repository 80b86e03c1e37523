import { GEMM_BIAS, GEMM_CLAMP } from './gemm-tile-module.js';
import { packPointwiseWeights, pointwiseKernel, pointwiseWorkBytes } from './pointwise-module.js';
import { tileEpilogue } from './tile-epilogue.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, tileFunction } from './tiles.js';
import { float32Of } from './memory-views.js';

export const CONV_POINTWISE = 'simd.convPointwise';

/** Positions per `pointwise` call when an epilogue follows: its block of Y is still in L2. */
const EPILOGUE_POSITIONS = 2048;
/**
 * Input channels up to which the pointwise kernel wins: one K panel in L1, no K blocking. Measured
 * 1.3–1.8× gemmIndirect / im2col+gemmTile from 16 to 64 input channels; at 96 even, beyond slower.
 */
const POINTWISE_MAX_K = 64;
/**
 * Output positions from which it is used above DIRECT_MAX_CHANNELS_POINTWISE output channels: each
 * tile packs its weights (JavaScript, about a nanosecond a value), a loss against few positions
 * (96→576 channels over 12×12 ran at 35 GFLOP/s against im2col+gemmTile's 47).
 */
const POINTWISE_MIN_POSITIONS = 1024;

/** Whether a pointwise convolution (cg → mg channels per group over `positions`) takes `convPointwiseTile`. */
export function pointwiseFits(cg: number, mg: number, positions: number, workspaceBytes: number): boolean {
  if (cg > POINTWISE_MAX_K || pointwiseWorkBytes(mg, cg) > workspaceBytes) return false;
  return mg < 32 || positions >= POINTWISE_MIN_POSITIONS;
}

/**
 * Tile [g0, g1, m0, m1, p0, p1] of a pointwise (1×1, stride 1, unpadded) convolution on NCHW:
 * output channels [m0, m1) of each group × positions [p0, p1), the weights of those channels
 * packed into this thread's workspace, X read in place (see pointwise-module.ts).
 * Arguments: x, w, y, bias (byte addresses; bias -1 when absent), batch, inC, outC, group,
 * positions, g0, g1, m0, m1, p0, p1, lo, hi, then a generated epilogue's tail (conv-epilogue.ts),
 * run over each finished block of Y.
 */
export const convPointwiseTile = tileFunction(CONV_POINTWISE, (memory, t) => {
  const a = t as number[];
  const [x, w, y, bias, batch, inC, outC, group, positions, g0, g1, m0, m1, p0, p1, lo, hi] = a as number[] as NumberTuple<17>;
  const kernel = pointwiseKernel(memory);
  const workspace = threadWorkspace(memory);
  if (!kernel || !workspace) throw new Error(`${CONV_POINTWISE} needs WebAssembly SIMD and a thread workspace`);
  const epilogue = tileEpilogue(memory, a, 17);
  const cg = inC / group;
  const mg = outC / group;
  const rows = m1 - m0;
  const work = workspace.offset;
  const packed = work + 64 + cg * 32;
  const all = float32Of(memory);
  const flags = (bias >= 0 ? GEMM_BIAS : 0) | (lo > Number.NEGATIVE_INFINITY || hi < Number.POSITIVE_INFINITY ? GEMM_CLAMP : 0);
  const step = epilogue ? EPILOGUE_POSITIONS : p1 - p0;
  for (let g = g0; g < g1; g++) {
    const m = g * mg + m0;
    packPointwiseWeights(all.subarray(w / 4 + m * cg, w / 4 + (m + rows) * cg), rows, cg, all.subarray(packed / 4));
    for (let n = 0; n < batch; n++) {
      const xg = x + (n * inC + g * cg) * positions * 4;
      const yg = y + (n * outC + m) * positions * 4;
      for (let s = p0; s < p1; s += step) {
        const e = Math.min(p1, s + step);
        kernel(rows, e - s, cg, packed, xg + s * 4, positions, yg + s * 4, positions, flags, bias + m * 4, lo, hi, work);
        epilogue?.run(n, m, m + rows, s, e);
      }
    }
  }
});
