/**
 * SimplifiedLayerNormalization and com.microsoft SkipSimplifiedLayerNormalization: RMS norm over
 * the trailing axes, statistics in float64, inv_std_var written as float32.
 */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';

/** Writes rows of `values` RMS-normalised and scaled into `out`; returns 1/rms per row. */
function rmsRows(
  values: ArrayLike<number>,
  scale: ArrayLike<number>,
  rows: number,
  size: number,
  options: { epsilon: number; out: Float32Array | Float64Array },
): Float64Array {
  const inv = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let sq = 0;
    for (let i = r * size; i < (r + 1) * size; i++) sq += (values[i] as number) * (values[i] as number);
    const k = 1 / Math.sqrt(sq / size + options.epsilon);
    inv[r] = k;
    for (let i = 0; i < size; i++) options.out[r * size + i] = (values[r * size + i] as number) * k * (scale[i] as number);
  }
  return inv;
}

function simplified(ctx: KernelContextV1): void {
  const x = requireTensor(ctx, 0);
  const scaleT = requireTensor(ctx, 1);
  const rank = x.dims.length;
  const attrAxis = ctx.attrs.int('axis', -1);
  const axis = attrAxis < 0 ? attrAxis + rank : attrAxis;
  if (axis < 0 || axis >= rank) throw kernelError(ctx, `axis ${attrAxis} is out of range for rank ${rank}`);
  const rows = x.dims.slice(0, axis).reduce((a, b) => a * b, 1);
  const size = x.dims.slice(axis).reduce((a, b) => a * b, 1);
  if (scaleT.data.length !== size) throw kernelError(ctx, `scale must hold ${size} values (the normalised dims), got [${scaleT.dims}]`);
  const out = floatOutput(ctx, 0, x.dims, scaleT.type);
  const inv = rmsRows(readFloats(x), readFloats(scaleT), rows, size, { epsilon: ctx.attrs.float('epsilon', 1e-5), out: out.data });
  out.commit();
  if (ctx.outputCount > 1) {
    const dtype = ctx.attrs.int('stash_type', 1) === 11 ? 'float64' : 'float32';
    (
      ctx.output(
        1,
        x.dims.map((d, i) => (i >= axis ? 1 : d)),
        dtype,
      ).data as Float32Array | Float64Array
    ).set(inv);
  }
}

function skipSimplified(ctx: KernelContextV1): void {
  const x = requireTensor(ctx, 0);
  const skip = requireTensor(ctx, 1);
  const gamma = requireTensor(ctx, 2);
  if (x.dims.length !== 2 && x.dims.length !== 3) throw kernelError(ctx, `input must be 2-D or 3-D, got [${x.dims}]`);
  const size = x.dims[x.dims.length - 1] as number;
  const total = x.data.length;
  // skip is the input's shape, or [S, H] / [1, S, H] shared by every batch of a 3-D input
  const same = skip.dims.join() === x.dims.join();
  const shared =
    x.dims.length === 3 && (skip.dims.join() === x.dims.slice(1).join() || skip.dims.join() === [1, ...x.dims.slice(1)].join());
  if (!same && !shared) throw kernelError(ctx, `skip [${skip.dims}] must be [${x.dims}] or [${x.dims.slice(1)}]`);
  if (gamma.data.length !== size) throw kernelError(ctx, `gamma must hold ${size} values, got [${gamma.dims}]`);
  const bias = hasInput(ctx, 3) ? readFloats(requireTensor(ctx, 3)) : undefined;
  if (bias && bias.length !== size) throw kernelError(ctx, `bias must hold ${size} values`);
  const xs = readFloats(x);
  const ss = readFloats(skip);
  const sum = new Float64Array(total);
  for (let i = 0; i < total; i++) sum[i] = (xs[i] as number) + (ss[i % ss.length] as number) + (bias ? (bias[i % size] as number) : 0);
  const rows = total / size;
  const out = floatOutput(ctx, 0, x.dims, x.type);
  const inv = rmsRows(sum, readFloats(gamma), rows, size, { epsilon: ctx.attrs.float('epsilon', 1e-5), out: out.data });
  out.commit();
  const stats = x.dims.map((d, i) => (i === x.dims.length - 1 ? 1 : d));
  if (ctx.outputCount > 1) {
    const mean = ctx.output(1, stats, 'float32').data as Float32Array;
    for (let r = 0; r < rows; r++) {
      let m = 0;
      for (let i = r * size; i < (r + 1) * size; i++) m += sum[i] as number;
      mean[r] = m / size;
    }
  }
  if (ctx.outputCount > 2) (ctx.output(2, stats, 'float32').data as Float32Array).set(inv);
  if (ctx.outputCount > 3) {
    const s = floatOutput(ctx, 3, x.dims, x.type);
    s.data.set(sum);
    s.commit();
  }
}

export const simplifiedLayerNormalizationKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'SimplifiedLayerNormalization', compute: simplified }),
  defineKernel({ opType: 'SkipSimplifiedLayerNormalization', domain: 'com.microsoft', compute: skipSimplified }),
];
