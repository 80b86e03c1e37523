/**
 * QuantizeLinear / DequantizeLinear (per-tensor, per-axis and blocked; integer, 4-bit and float8
 * kinds), DynamicQuantizeLinear and QLinearMatMul.
 */
import { type HostTensor, type KernelContextV1, type KernelV1, dataTypeFromOnnx } from '@tsge/metadef';
import { broadcastDims, broadcastIndexMap } from '../common/broadcast.js';
import { encodeSmallFloat, isSmallFloatType, smallFloatDecodeTable } from '../common/math-float8.js';
import { dimProduct, quantizedOutputType } from '@tsge/ops/kernel-support';
import { floatOutput, hasInput, readFloats, writeFloatsInto } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { integerRange, roundHalfEven } from '../common/nn-quant.js';
import { defineKernel } from '../define.js';

/** Tensor values as numbers, decoding float8/float4 codes. */
function decodeValues(t: HostTensor): Float64Array {
  if (isSmallFloatType(t.type)) {
    const table = smallFloatDecodeTable(t.type);
    const codes = t.data as Uint8Array;
    const out = new Float64Array(codes.length);
    for (let i = 0; i < codes.length; i++) out[i] = table[codes[i] as number] as number;
    return out;
  }
  const f = readFloats(t);
  return f instanceof Float64Array ? f : Float64Array.from(f);
}

/** Maps element index → scale/zero-point index for per-tensor, per-axis or blocked layouts. */
function paramIndexer(ctx: KernelContextV1, x: HostTensor, scale: HostTensor): (i: number) => number {
  const count = dimProduct(scale.dims);
  if (scale.dims.length === 0 || count === 1) return () => 0;
  const rank = x.dims.length;
  let axis = ctx.attrs.int('axis', 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw kernelError(ctx, `axis out of range for rank ${rank}`);
  const len = x.dims[axis] as number;
  const inner = dimProduct(x.dims, axis + 1);
  const blockSize = ctx.attrs.int('block_size', 0);
  if (blockSize > 0) {
    const blocks = Math.ceil(len / blockSize);
    if (scale.dims.length !== rank || scale.dims[axis] !== blocks)
      throw kernelError(ctx, `blocked scale must have ${blocks} entries on axis ${axis}, got [${scale.dims}]`);
    return (i) => {
      const o = Math.floor(i / (len * inner));
      const a = Math.floor(i / inner) % len;
      return (o * blocks + Math.floor(a / blockSize)) * inner + (i % inner);
    };
  }
  if (count !== len) throw kernelError(ctx, `per-axis scale must have ${len} elements, got ${count}`);
  return (i) => Math.floor(i / inner) % len;
}

function runQuantize(ctx: KernelContextV1): void {
  const x = requireTensor(ctx, 0);
  const scaleT = requireTensor(ctx, 1);
  const zpT = hasInput(ctx, 2) ? requireTensor(ctx, 2) : undefined;
  const outType = quantizedOutputType(ctx, zpT?.type);
  const xs = decodeValues(x);
  const scales = decodeValues(scaleT);
  const zps = zpT ? decodeValues(zpT) : undefined;
  const at = paramIndexer(ctx, x, scaleT);
  const y = ctx.output(0, x.dims, outType);
  const n = xs.length;
  // numpy divides in the input's precision
  const single = x.type !== 'float64';
  if (isSmallFloatType(outType)) {
    const saturate = ctx.attrs.int('saturate', 1) !== 0;
    const codes = y.data as Uint8Array;
    for (let i = 0; i < n; i++) {
      const k = at(i);
      let v = (xs[i] as number) / (scales[k] as number);
      if (single) v = Math.fround(v);
      codes[i] = encodeSmallFloat(outType, v + (zps ? (zps[k] as number) : 0), saturate);
    }
    return;
  }
  const [lo, hi] = integerRange(outType);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const k = at(i);
    let v = (xs[i] as number) / (scales[k] as number);
    if (single) v = Math.fround(v);
    const q = roundHalfEven(v) + (zps ? (zps[k] as number) : 0);
    out[i] = q < lo ? lo : Math.min(q, hi);
  }
  writeFloatsInto(y, out);
}

function runDequantize(ctx: KernelContextV1): void {
  const x = requireTensor(ctx, 0);
  const scaleT = requireTensor(ctx, 1);
  const zpT = hasInput(ctx, 2) ? requireTensor(ctx, 2) : undefined;
  const code = ctx.attrs.int('output_dtype', 0);
  const outType = (code ? dataTypeFromOnnx(code) : undefined) ?? scaleT.type;
  const xs = decodeValues(x);
  const scales = decodeValues(scaleT);
  const zps = zpT ? decodeValues(zpT) : undefined;
  const at = paramIndexer(ctx, x, scaleT);
  const out = floatOutput(ctx, 0, x.dims, outType);
  const single = outType !== 'float64';
  for (let i = 0; i < xs.length; i++) {
    const k = at(i);
    const v = ((xs[i] as number) - (zps ? (zps[k] as number) : 0)) * (scales[k] as number);
    out.data[i] = single ? Math.fround(v) : v;
  }
  out.commit();
}

function runDynamicQuantize(ctx: KernelContextV1): void {
  const x = requireTensor(ctx, 0);
  const xs = readFloats(x);
  let min = 0;
  let max = 0;
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i] as number;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const scale = Math.fround((max - min) / 255);
  const zp = scale === 0 ? 0 : Math.min(255, Math.max(0, roundHalfEven(Math.fround(-min / scale))));
  const y = ctx.output(0, x.dims, 'uint8').data as Uint8Array;
  for (let i = 0; i < xs.length; i++) {
    const q = scale === 0 ? zp : roundHalfEven(Math.fround((xs[i] as number) / scale)) + zp;
    y[i] = q < 0 ? 0 : Math.min(q, 255);
  }
  if (ctx.outputCount > 1) (ctx.output(1, [], 'float32').data as Float32Array)[0] = scale;
  if (ctx.outputCount > 2) (ctx.output(2, [], 'uint8').data as Uint8Array)[0] = zp;
}

/** Batched matmul dims with numpy 1-D promotion: returns output dims and per-batch offsets. */
function matmulLayout(ctx: KernelContextV1, aDims: readonly number[], bDims: readonly number[]) {
  const a = aDims.length === 1 ? [1, aDims[0] as number] : [...aDims];
  const b = bDims.length === 1 ? [bDims[0] as number, 1] : [...bDims];
  const m = a[a.length - 2] as number;
  const k = a[a.length - 1] as number;
  const n = b[b.length - 1] as number;
  if (b[b.length - 2] !== k) throw kernelError(ctx, `cannot multiply [${aDims}] by [${bDims}]`);
  let batch: number[];
  try {
    batch = broadcastDims(a.slice(0, -2), b.slice(0, -2));
  } catch {
    throw kernelError(ctx, `batch dims of [${aDims}] and [${bDims}] do not broadcast`);
  }
  const aMap = broadcastIndexMap(a.slice(0, -2), batch);
  const bMap = broadcastIndexMap(b.slice(0, -2), batch);
  const outDims = [...batch, ...(aDims.length === 1 ? [] : [m]), ...(bDims.length === 1 ? [] : [n])];
  return { m, k, n, batches: dimProduct(batch), aMap, bMap, outDims };
}

function runQLinearMatMul(ctx: KernelContextV1): void {
  const aT = requireTensor(ctx, 0);
  const bT = requireTensor(ctx, 3);
  const layout = matmulLayout(ctx, aT.dims, bT.dims);
  const { m, k, n } = layout;
  const a = decodeValues(aT);
  const b = decodeValues(bT);
  const aScale = decodeValues(requireTensor(ctx, 1));
  const aZp = decodeValues(requireTensor(ctx, 2));
  const bScale = decodeValues(requireTensor(ctx, 4));
  const bZp = decodeValues(requireTensor(ctx, 5));
  const yScale = decodeValues(requireTensor(ctx, 6));
  const yZpT = requireTensor(ctx, 7);
  const yZp = decodeValues(yZpT)[0] ?? 0;
  const pick = (v: Float64Array, i: number) => (v.length === 1 ? (v[0] as number) : (v[i] as number));
  const [lo, hi] = integerRange(yZpT.type);
  const y = new Float64Array(layout.batches * m * n);
  for (let bi = 0; bi < layout.batches; bi++) {
    const aBase = (layout.aMap[bi] as number) * m * k;
    const bBase = (layout.bMap[bi] as number) * k * n;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let acc = 0;
        const az = pick(aZp, i);
        const bz = pick(bZp, j);
        for (let p = 0; p < k; p++) acc += ((a[aBase + i * k + p] as number) - az) * ((b[bBase + p * n + j] as number) - bz);
        const scale = Math.fround(Math.fround(pick(aScale, i) * pick(bScale, j)) / (yScale[0] as number));
        // the int32 sum as float32 times the float32 multiplier, as onnxruntime requantizes (exact
        // for |acc| ≤ 2^24; beyond, the sum rounds to float32 first there too)
        const v = Math.fround(Math.fround(acc) * scale);
        if (isSmallFloatType(yZpT.type)) y[bi * m * n + i * n + j] = v + yZp;
        else {
          const q = roundHalfEven(v) + yZp;
          y[bi * m * n + i * n + j] = q < lo ? lo : Math.min(q, hi);
        }
      }
  }
  const out = ctx.output(0, layout.outDims, yZpT.type);
  if (isSmallFloatType(yZpT.type)) {
    const codes = out.data as Uint8Array;
    for (let i = 0; i < y.length; i++) codes[i] = encodeSmallFloat(yZpT.type, y[i] as number, true);
  } else writeFloatsInto(out, y);
}

export const quantizeKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'QuantizeLinear', compute: runQuantize }),
  defineKernel({ opType: 'DequantizeLinear', compute: runDequantize }),
  defineKernel({ opType: 'DynamicQuantizeLinear', compute: runDynamicQuantize }),
  defineKernel({ opType: 'QLinearMatMul', compute: runQLinearMatMul }),
];
