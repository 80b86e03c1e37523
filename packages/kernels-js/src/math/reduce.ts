/** ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare with axes as input, and ArgMax/ArgMin. */
import { type KernelContextV1, type KernelV1, toNumberArray } from '@tsge/metadef';
import { broadcastIndexMap } from '../common/broadcast.js';
import { mathReduceAxesNormalizeAxes as normalizeAxes, type Kind, REDUCE } from '@tsge/ops/kernel-support';
import { reduceDims } from '../common/math-reduce-axes.js';
import { numberOutput, numbersOf } from '../common/math-values.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

function initial(kind: Kind): number {
  switch (kind) {
    case 'max':
    case 'logsumexp':
      return Number.NEGATIVE_INFINITY;
    case 'min':
      return Number.POSITIVE_INFINITY;
    case 'prod':
      return 1;
    default:
      return 0;
  }
}

/** For each input element, its output slot; trailing-axes reductions (the common case) skip the odometer. */
function reductionMap(dims: readonly number[], axes: readonly number[], kept: readonly number[]): Int32Array {
  const rank = dims.length;
  const suffix = axes.every((a, i) => a === rank - axes.length + i);
  if (!suffix) return broadcastIndexMap(kept, dims);
  let inner = 1;
  for (const a of axes) inner *= dims[a]!;
  let total = 1;
  for (const d of dims) total *= d;
  const map = new Int32Array(total);
  for (let i = 0, o = 0; i < total; o++) for (let k = 0; k < inner; k++, i++) map[i] = o;
  return map;
}

/** Exact 64-bit Sum/Prod/Max/Min (float64 would round above 2^53); empty Max/Min give 0. */
function reduceBigInt(src: BigInt64Array, map: Int32Array, kind: 'sum' | 'prod' | 'max' | 'min', out: BigInt64Array): void {
  const seen = new Uint8Array(out.length);
  out.fill(kind === 'prod' ? 1n : 0n);
  for (let i = 0; i < map.length; i++) {
    const o = map[i]!;
    const v = src[i]!;
    if (kind === 'sum') out[o] = out[o]! + v;
    else if (kind === 'prod') out[o] = out[o]! * v;
    else if (!seen[o] || (kind === 'max' ? v > out[o]! : v < out[o]!)) out[o] = v;
    seen[o] = 1;
  }
}

function computeReduce(ctx: KernelContextV1, kind: Kind): void {
  const x = requireTensor(ctx, 0);
  const keepdims = ctx.attrs.int('keepdims', 1) !== 0;
  const noop = ctx.attrs.int('noop_with_empty_axes', 0) !== 0;
  const axesTensor = ctx.tensor(1);
  const rawAxes = axesTensor ? toNumberArray(axesTensor) : ctx.attrs.has('axes') ? ctx.attrs.ints('axes') : [];
  const rank = x.dims.length;
  if (rawAxes.length === 0 && noop) {
    const out = ctx.output(0, x.dims, x.type);
    if (Array.isArray(x.data)) throw kernelError(ctx, `${x.type} tensors cannot be reduced`);
    (out.data as Uint8Array).set(x.data as Uint8Array);
    return;
  }
  const axes = rawAxes.length === 0 ? x.dims.map((_, i) => i) : normalizeAxes(rawAxes, rank);
  if (!axes) throw kernelError(ctx, `axes [${rawAxes.join(',')}] out of range for rank ${rank}`);
  const kept = reduceDims(x.dims, axes, true);
  const outDims = keepdims ? kept : reduceDims(x.dims, axes, false);
  let outCount = 1;
  for (const d of kept) outCount *= d;
  const map = reductionMap(x.dims, axes, kept);
  if ((x.type === 'int64' || x.type === 'uint64') && (kind === 'sum' || kind === 'prod' || kind === 'max' || kind === 'min')) {
    reduceBigInt(x.data as BigInt64Array, map, kind, ctx.output(0, outDims, x.type).data as BigInt64Array);
    return;
  }
  const src = numbersOf(x);
  const acc = new Float64Array(outCount).fill(initial(kind));
  const n = map.length;
  switch (kind) {
    case 'sum':
    case 'mean':
      for (let i = 0; i < n; i++) acc[map[i]!]! += src[i]!;
      break;
    case 'logsum':
      for (let i = 0; i < n; i++) acc[map[i]!]! += src[i]!;
      for (let o = 0; o < outCount; o++) acc[o] = Math.log(acc[o]!);
      break;
    case 'prod':
      for (let i = 0; i < n; i++) acc[map[i]!]! *= src[i]!;
      break;
    case 'l1':
      for (let i = 0; i < n; i++) acc[map[i]!]! += Math.abs(src[i]!);
      break;
    case 'l2':
    case 'sumsquare':
      for (let i = 0; i < n; i++) acc[map[i]!]! += src[i]! * src[i]!;
      if (kind === 'l2') for (let o = 0; o < outCount; o++) acc[o] = Math.sqrt(acc[o]!);
      break;
    case 'max':
      for (let i = 0; i < n; i++) {
        const v = src[i]!;
        const o = map[i]!;
        if (v > acc[o]! || Number.isNaN(v)) acc[o] = v;
      }
      break;
    case 'min':
      for (let i = 0; i < n; i++) {
        const v = src[i]!;
        const o = map[i]!;
        if (v < acc[o]! || Number.isNaN(v)) acc[o] = v;
      }
      break;
    case 'logsumexp': {
      // subtract the per-slot maximum for stability
      const peak = new Float64Array(outCount).fill(Number.NEGATIVE_INFINITY);
      for (let i = 0; i < n; i++) if (src[i]! > peak[map[i]!]!) peak[map[i]!] = src[i]!;
      acc.fill(0);
      for (let i = 0; i < n; i++) {
        const p = peak[map[i]!]!;
        acc[map[i]!]! += Math.exp(src[i]! - (Number.isFinite(p) ? p : 0));
      }
      for (let o = 0; o < outCount; o++) {
        const p = peak[o]!;
        acc[o] = Math.log(acc[o]!) + (Number.isFinite(p) ? p : 0);
      }
      break;
    }
  }
  if (kind === 'mean') {
    const count = outCount === 0 ? 0 : n / outCount;
    for (let o = 0; o < outCount; o++) acc[o] = acc[o]! / count;
  }
  const out = numberOutput(ctx, 0, outDims, x.type);
  if (x.type === 'bool') for (let o = 0; o < outCount; o++) out.values[o] = acc[o] ? 1 : 0;
  else out.values.set(acc);
  out.commit();
}

function computeArg(ctx: KernelContextV1, largest: boolean): void {
  const x = requireTensor(ctx, 0);
  const rank = x.dims.length;
  const axisAttr = ctx.attrs.int('axis', 0);
  const axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
  if (axis < 0 || axis >= rank) throw kernelError(ctx, `axis ${axisAttr} out of range for rank ${rank}`);
  const keepdims = ctx.attrs.int('keepdims', 1) !== 0;
  const last = ctx.attrs.int('select_last_index', 0) !== 0;
  const outDims = reduceDims(x.dims, [axis], keepdims);
  const size = x.dims[axis]!;
  if (size === 0) throw kernelError(ctx, 'cannot take the arg of an empty axis');
  let outer = 1;
  for (let i = 0; i < axis; i++) outer *= x.dims[i]!;
  let inner = 1;
  for (let i = axis + 1; i < rank; i++) inner *= x.dims[i]!;
  const src = numbersOf(x);
  const out = ctx.output(0, outDims, 'int64').data as BigInt64Array;
  for (let o = 0; o < outer; o++) {
    for (let j = 0; j < inner; j++) {
      const base = o * size * inner + j;
      let best = src[base]!;
      let bestIndex = 0;
      for (let k = 1; k < size; k++) {
        const v = src[base + k * inner]!;
        const better = largest ? v > best || (last && v === best) : v < best || (last && v === best);
        if (better) {
          best = v;
          bestIndex = k;
        }
      }
      out[o * inner + j] = BigInt(bestIndex);
    }
  }
}

export const reduceKernels: readonly KernelV1[] = [
  ...REDUCE.map(([opType, kind]) => defineKernel({ opType, compute: (ctx) => computeReduce(ctx, kind) })),
  defineKernel({ opType: 'ArgMax', compute: (ctx) => computeArg(ctx, true) }),
  defineKernel({ opType: 'ArgMin', compute: (ctx) => computeArg(ctx, false) }),
];
