import type { HostTensor, KernelContextV1, LinearMemory, ParallelRunnerV1 } from '@tsge/metadef';
import { type ResizeTaps, resizePasses } from '@tsge/kernels-js/kernel-support';
import { resizeRowsKernel } from './resize-separable-module.js';
import { threadWorkspace } from './thread-workspace.js';
import { runTiles, splitRange, tileFunction } from './tiles.js';
import { float32Of } from './memory-views.js';

/** Taps of an axis that keeps its length: each output reads its own index. */
function identityTaps(length: number): ResizeTaps {
  return {
    count: 1,
    index: Int32Array.from({ length }, (_, i) => i),
    weight: new Float64Array(length).fill(1),
    extrapolate: new Uint8Array(length),
  };
}

/**
 * Tile: output rows [r0, r1) of a separable Resize of x viewed as [planes, H, W, C] (the resized
 * axes H and W, then the C elements after them, 1 for NCHW, the channels for NHWC),
 * `[r0, r1, x, y, H, W, C, OH, OW, cH, cW, …row indices, …row weights, …column indices, …column
 * weights]` (byte addresses). Each output row blends its cH input rows (contiguous runs of W·C),
 * then each output column takes its cW taps of C elements from that blend. Zero weights are
 * skipped, as the reference skips them (0 · ∞ would be NaN).
 */
export const resizeSeparableTile = tileFunction('resize-separable', (memory, args) => {
  const [r0, r1, xAt, yAt, H, W, C, OH, OW, cH, cW] = args as unknown as number[] as [
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
  const head = 11;
  const rowIndex = args.slice(head, head + OH * cH);
  const rowWeight = args.slice(head + OH * cH, head + 2 * OH * cH);
  const columns = head + 2 * OH * cH;
  const colIndex = Int32Array.from(args.slice(columns, columns + OW * cW));
  const colWeight = Float64Array.from(args.slice(columns + OW * cW, columns + 2 * OW * cW));
  if (colIndex.some((i) => i < 0 || i >= W) || rowIndex.some((i) => i < 0 || i >= H))
    throw new RangeError('resize-separable tile: a tap outside the input');
  if (resizeInWasm(memory, args, head)) return;
  const planes = r1 > r0 ? Math.floor((r1 - 1) / OH) + 1 : 0;
  const X = new Float32Array(memory.buffer, xAt, planes * H * W * C);
  const Y = new Float32Array(memory.buffer, yAt, planes * OH * OW * C);
  const WC = W * C;
  const blend = new Float64Array(WC);
  for (let r = r0; r < r1; r++) {
    const p = Math.floor(r / OH);
    const oh = r - p * OH;
    blend.fill(0);
    for (let t = 0; t < cH; t++) {
      const w = rowWeight[oh * cH + t] as number;
      if (w === 0) continue;
      const from = (p * H + (rowIndex[oh * cH + t] as number)) * WC;
      for (let i = 0; i < WC; i++) blend[i] = (blend[i] as number) + w * (X[from + i] as number);
    }
    if (C === 1) {
      // NCHW: one element per column, the taps unrolled for the common two
      const at = r * OW;
      for (let ow = 0, k = 0; ow < OW; ow++, k += cW) {
        let sum = 0;
        const w0 = colWeight[k] as number;
        if (w0 !== 0) sum = w0 * (blend[colIndex[k] as number] as number);
        for (let t = 1; t < cW; t++) {
          const w = colWeight[k + t] as number;
          if (w !== 0) sum += w * (blend[colIndex[k + t] as number] as number);
        }
        Y[at + ow] = sum;
      }
      continue;
    }
    for (let ow = 0; ow < OW; ow++) {
      const at = (r * OW + ow) * C;
      const k = ow * cW;
      const w0 = colWeight[k] as number;
      const w1 = cW > 1 ? (colWeight[k + 1] as number) : 0;
      if (cW <= 2 && w0 !== 0 && w1 !== 0) {
        const b0 = (colIndex[k] as number) * C;
        const b1 = (colIndex[k + 1] as number) * C;
        for (let c = 0; c < C; c++) Y[at + c] = w0 * (blend[b0 + c] as number) + w1 * (blend[b1 + c] as number);
        continue;
      }
      for (let c = 0; c < C; c++) {
        let s = 0;
        for (let t = 0; t < cW; t++) {
          const w = colWeight[k + t] as number;
          if (w !== 0) s += w * (blend[(colIndex[k + t] as number) * C + c] as number);
        }
        Y[at + c] = s;
      }
    }
  }
});

/**
 * The tile's rows in WebAssembly (float32 lanes), its tap tables and the blended row in this
 * thread's workspace. False (the caller runs the JS loops) without SIMD or when they do not fit.
 */
function resizeInWasm(memory: LinearMemory, args: ArrayLike<number>, head: number): boolean {
  const [r0, r1, xAt, yAt, H, W, C, OH, OW, cH, cW] = Array.from({ length: head }, (_, i) => args[i] as number);
  const kernel = resizeRowsKernel(memory);
  const workspace = threadWorkspace(memory);
  const align = (bytes: number): number => Math.ceil(bytes / 64) * 64;
  const blendBytes = align(W * C * 4);
  const rowTaps = OH * cH;
  const columnTaps = OW * cW;
  if (!kernel || !workspace || blendBytes + align(rowTaps * 8) + align(columnTaps * 8) > workspace.bytes) return false;
  const blend = workspace.offset;
  const rowIndex = blend + blendBytes;
  const rowWeight = rowIndex + rowTaps * 4;
  const columnOffset = rowIndex + align(rowTaps * 8);
  const columnWeight = columnOffset + columnTaps * 4;
  const ints = new Int32Array(memory.buffer);
  const floats = float32Of(memory);
  for (let i = 0; i < rowTaps; i++) {
    ints[rowIndex / 4 + i] = args[head + i] as number;
    floats[rowWeight / 4 + i] = args[head + rowTaps + i] as number;
  }
  const columns = head + 2 * rowTaps;
  for (let i = 0; i < columnTaps; i++) {
    ints[columnOffset / 4 + i] = (args[columns + i] as number) * C * 4;
    floats[columnWeight / 4 + i] = args[columns + columnTaps + i] as number;
  }
  kernel(xAt, yAt, r0, r1, H, W * C, C, OH, OW, cH, cW, rowIndex, rowWeight, columnOffset, columnWeight, blend);
  return true;
}

/**
 * Linear/cubic Resize (every coordinate mode but tf_crop_and_resize's extrapolation, antialias,
 * exclude_outside: the reference's own taps) of float32 in device memory when the resized axes are
 * one axis or two adjacent ones (NCHW's H, W or NHWC's), split by output rows across threads.
 * False when it does not apply.
 */
export function resizeSeparable(
  ctx: KernelContextV1,
  memory: LinearMemory,
  x: HostTensor,
  parallel: ParallelRunnerV1 | undefined,
): boolean {
  const rank = x.dims.length;
  const { outDims, passes } = resizePasses(ctx, x);
  if (passes.length === 0 || passes.some((p) => p.taps.extrapolate.some((e) => e !== 0))) return false;
  const wAxis = Math.max(...passes.map((p) => p.axis));
  if (passes.some((p) => p.axis < wAxis - 1)) return false;
  const hAxis = wAxis - 1;
  const product = (dims: readonly number[]): number => dims.reduce((a, b) => a * b, 1);
  const H = hAxis >= 0 ? (x.dims[hAxis] as number) : 1;
  const OH = hAxis >= 0 ? (outDims[hAxis] as number) : 1;
  const [W, OW] = [x.dims[wAxis] as number, outDims[wAxis] as number];
  const C = product(x.dims.slice(wAxis + 1));
  const planes = product(x.dims.slice(0, Math.max(0, hAxis)));
  if (planes * OH * OW * C === 0 || H * W === 0 || rank === 0) return false;
  const rows = passes.find((p) => p.axis === hAxis)?.taps ?? identityTaps(H);
  const cols = passes.find((p) => p.axis === wAxis)?.taps as ResizeTaps;
  const y = ctx.output(0, outDims, 'float32');
  const Y = y.data as Float32Array;
  const X = x.data as Float32Array;
  if (Y.buffer !== memory.buffer || (X.byteOffset < Y.byteOffset + Y.byteLength && Y.byteOffset < X.byteOffset + X.byteLength))
    return false;
  const taps = [...rows.index, ...rows.weight, ...cols.index, ...cols.weight];
  const work = (rows.count * W + cols.count * OW) * C;
  const ranges = splitRange(planes * OH, parallel?.threads ?? 1, 1, work, 1 << 16);
  const tiles = ranges.map(([r0, r1]) => [r0, r1, X.byteOffset, Y.byteOffset, H, W, C, OH, OW, rows.count, cols.count, ...taps]);
  runTiles(memory, parallel, resizeSeparableTile, tiles);
  return true;
}
