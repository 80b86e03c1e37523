/**
 * Resize (opset 19 semantics): nearest/linear/cubic, every coordinate transformation mode,
 * antialias, exclude_outside, axes and keep_aspect_ratio_policy. The interpolation is separable,
 * so it runs as one 1-D pass per resized axis (last axis first, as the ONNX reference recurses),
 * each pass reading precomputed taps.
 */
import { type HostTensor, type KernelContextV1, type KernelV1, toNumberArray } from '@tsge/metadef';
import { dimProduct, resizeNormalizeAxes as normalizeAxes, planResize } from '@tsge/ops/kernel-support';
import { hasInput, readFloats, writeFloatsInto } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

/** Per output position o: `count` source indices (clamped) and weights, or `extrapolate[o]` (tf_crop_and_resize outside the input). */
export interface ResizeTaps {
  readonly count: number;
  readonly index: Int32Array;
  readonly weight: Float64Array;
  readonly extrapolate: Uint8Array;
}

function cubicKernel(x: number, a: number): number {
  const ax = Math.abs(x);
  if (ax <= 1) return ((a + 2) * ax - (a + 3)) * ax * ax + 1;
  if (ax < 2) return ((a * ax - 5 * a) * ax + 8 * a) * ax - 4 * a;
  return 0;
}

interface ResizeAttrs {
  readonly mode: string;
  readonly coordinateMode: string;
  readonly nearestMode: string;
  readonly cubicA: number;
  readonly excludeOutside: boolean;
  readonly antialias: boolean;
}

function computeTaps(attrs: ResizeAttrs, inLen: number, outLen: number, scale: number, roiStart: number, roiEnd: number): ResizeTaps {
  const { mode, coordinateMode } = attrs;
  const aaScale = attrs.antialias && mode !== 'nearest' ? Math.min(scale, 1) : 1;
  let start: number;
  let count: number;
  if (mode === 'nearest') {
    start = 0;
    count = 2;
  } else if (mode === 'linear') {
    start = Math.floor(-1 / aaScale) + 1;
    count = 2 - 2 * start;
  } else {
    start = Math.floor(-2 / aaScale) + 1;
    count = 2 - 2 * start;
  }
  const index = new Int32Array(outLen * count);
  const weight = new Float64Array(outLen * count);
  const extrapolate = new Uint8Array(outLen);
  const outWidth = scale * inLen;
  for (let o = 0; o < outLen; o++) {
    let x: number;
    switch (coordinateMode) {
      case 'align_corners':
        x = outWidth === 1 ? 0 : (o * (inLen - 1)) / (outWidth - 1);
        break;
      case 'asymmetric':
        x = o / scale;
        break;
      case 'tf_crop_and_resize':
        x = outWidth === 1 ? ((roiEnd - roiStart) * (inLen - 1)) / 2 : (o * (roiEnd - roiStart) * (inLen - 1)) / (outWidth - 1);
        x += roiStart * (inLen - 1);
        break;
      case 'pytorch_half_pixel':
        x = outWidth === 1 ? -0.5 : (o + 0.5) / scale - 0.5;
        break;
      case 'half_pixel_symmetric': {
        const adjustment = outLen / outWidth;
        const center = inLen / 2;
        x = center * (1 - adjustment) + (o + 0.5) / scale - 0.5;
        break;
      }
      default:
        x = (o + 0.5) / scale - 0.5;
    }
    if (coordinateMode === 'tf_crop_and_resize' && (x < 0 || x > inLen - 1)) {
      extrapolate[o] = 1;
      continue;
    }
    // prefer the left pixel: ratio is in (0, 1]
    const base = Number.isInteger(x) ? x - 1 : Math.floor(x);
    const ratio = x - base;
    let sum = 0;
    for (let t = 0; t < count; t++) {
      const offset = start + t;
      let w: number;
      if (mode === 'nearest') {
        w = nearestWeight(attrs.nearestMode, ratio, t);
      } else if (mode === 'linear') {
        w = Math.max(0, 1 - Math.abs((offset - ratio) * aaScale));
      } else w = cubicKernel((offset - ratio) * aaScale, attrs.cubicA);
      const idx = base + offset;
      if (attrs.excludeOutside && (idx < 0 || idx >= inLen)) w = 0;
      index[o * count + t] = idx < 0 ? 0 : idx >= inLen ? inLen - 1 : idx;
      weight[o * count + t] = w;
      sum += w;
    }
    if ((attrs.antialias && mode !== 'nearest') || attrs.excludeOutside) {
      for (let t = 0; t < count; t++) weight[o * count + t] = (weight[o * count + t] as number) / sum;
    }
  }
  return { count, index, weight, extrapolate };
}

function nearestWeight(mode: string, ratio: number, tap: number): number {
  let right: boolean;
  if (ratio === 1) right = true;
  else if (mode === 'round_prefer_ceil') right = ratio >= 0.5;
  else if (mode === 'floor') right = false;
  else if (mode === 'ceil') right = true;
  else right = ratio > 0.5;
  return (tap === 1) === right ? 1 : 0;
}

/** One separable pass along `axis`. */
function resizeAxis(
  src: Float64Array,
  dims: readonly number[],
  axis: number,
  outLen: number,
  taps: ResizeTaps,
  extrapolation: number,
): Float64Array {
  const outer = dimProduct(dims, 0, axis);
  const inLen = dims[axis] as number;
  const inner = dimProduct(dims, axis + 1);
  const dst = new Float64Array(outer * outLen * inner);
  const { count, index, weight, extrapolate } = taps;
  for (let p = 0; p < outer; p++) {
    const srcBase = p * inLen * inner;
    for (let o = 0; o < outLen; o++) {
      const dstBase = (p * outLen + o) * inner;
      if (extrapolate[o]) {
        dst.fill(extrapolation, dstBase, dstBase + inner);
        continue;
      }
      for (let t = 0; t < count; t++) {
        const w = weight[o * count + t] as number;
        if (w === 0) continue;
        const rowBase = srcBase + (index[o * count + t] as number) * inner;
        for (let i = 0; i < inner; i++) dst[dstBase + i] = (dst[dstBase + i] as number) + w * (src[rowBase + i] as number);
      }
    }
  }
  return dst;
}

function readResizeAttrs(ctx: KernelContextV1): ResizeAttrs {
  return {
    mode: ctx.attrs.string('mode', 'nearest'),
    coordinateMode: ctx.attrs.string('coordinate_transformation_mode', 'half_pixel'),
    nearestMode: ctx.attrs.string('nearest_mode', 'round_prefer_floor'),
    cubicA: ctx.attrs.float('cubic_coeff_a', -0.75),
    excludeOutside: ctx.attrs.int('exclude_outside', 0) !== 0,
    antialias: ctx.attrs.int('antialias', 0) !== 0,
  };
}

function optionalNumbers(t: HostTensor | undefined): number[] | undefined {
  return t ? toNumberArray(t) : undefined;
}

/** One 1-D pass of a Resize: axis `axis` goes to `outLen` through `taps`. */
export interface ResizePass {
  readonly axis: number;
  readonly outLen: number;
  readonly taps: ResizeTaps;
}

/**
 * The output dims and the separable passes (last axis first) of a Resize node on input `x`:
 * what the reference runs, for kernels that run the same taps faster.
 */
export function resizePasses(
  ctx: KernelContextV1,
  x: HostTensor,
): { outDims: readonly number[]; passes: ResizePass[]; extrapolation: number } {
  const rank = x.dims.length;
  const axes = normalizeAxes(ctx.attrs.ints('axes', [...Array(rank).keys()]), rank);
  if (axes.some((a) => a < 0 || a >= rank)) throw kernelError(ctx, `axes out of range for rank ${rank}`);
  const plan = planResize(
    x.dims,
    { axes, policy: ctx.attrs.string('keep_aspect_ratio_policy', 'stretch') },
    {
      roi: optionalNumbers(hasInput(ctx, 1) ? ctx.tensor(1) : undefined),
      scales: optionalNumbers(hasInput(ctx, 2) ? ctx.tensor(2) : undefined),
      sizes: optionalNumbers(hasInput(ctx, 3) ? ctx.tensor(3) : undefined),
    },
  );
  if (typeof plan === 'string') throw kernelError(ctx, plan);
  const attrs = readResizeAttrs(ctx);
  if (!['nearest', 'linear', 'cubic'].includes(attrs.mode)) throw kernelError(ctx, `unknown mode ${attrs.mode}`);
  const passes: ResizePass[] = [];
  for (let a = rank - 1; a >= 0; a--) {
    const inLen = x.dims[a] as number;
    const outLen = plan.outDims[a] as number;
    const scale = plan.scales[a] as number;
    if (inLen === outLen && scale === 1 && attrs.coordinateMode !== 'tf_crop_and_resize') continue;
    if (inLen === 0 && outLen > 0) throw kernelError(ctx, `cannot resize an empty axis ${a} to ${outLen}`);
    passes.push({ axis: a, outLen, taps: computeTaps(attrs, inLen, outLen, scale, plan.roi?.[a] ?? 0, plan.roi?.[rank + a] ?? 1) });
  }
  return { outDims: plan.outDims, passes, extrapolation: ctx.attrs.float('extrapolation_value', 0) };
}

function runResize(ctx: KernelContextV1): void {
  const x = requireTensor(ctx, 0);
  const { outDims, passes, extrapolation } = resizePasses(ctx, x);
  let data: Float64Array = Float64Array.from(readFloats(x));
  const dims = [...x.dims];
  for (const { axis, outLen, taps } of passes) {
    data = resizeAxis(data, dims, axis, outLen, taps, extrapolation);
    dims[axis] = outLen;
  }
  const y = ctx.output(0, outDims, x.type);
  writeFloatsInto(y, data);
}

export const resizeKernels: readonly KernelV1[] = [defineKernel({ opType: 'Resize', compute: runResize })];
