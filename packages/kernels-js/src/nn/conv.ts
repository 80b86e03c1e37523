/** Conv, ConvInteger and QLinearConv: im2col through a gather table, then a blocked GEMM per group. */
import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { type WindowGeometry, windowGatherTable, windowGeometry } from '../common/nn-conv-geometry.js';
import { readWindowAttrs, type FloatArray, dimProduct } from '@tsge/ops/kernel-support';
import { floatOutput, hasInput, readFloat64, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { gemmAccumulate } from '../common/nn-gemm.js';
import { integerRange, roundHalfEven } from '../common/nn-quant.js';
import { defineKernel } from '../define.js';

export interface ConvProblem {
  readonly batch: number;
  readonly inChannels: number;
  readonly outChannels: number;
  readonly group: number;
  readonly geometry: WindowGeometry;
}

/** First output index o with o*stride + offset >= 0, and one past the last with o*stride + offset < size. */
function validRange(outLen: number, stride: number, offset: number, size: number): [number, number] {
  const start = offset >= 0 ? 0 : Math.min(outLen, Math.ceil(-offset / stride));
  const end = Math.max(start, Math.min(outLen, Math.floor((size - 1 - offset) / stride) + 1));
  return [start, end];
}

/** 2-D im2col of `cg` channels starting at xBase into col [cg*kh*kw, oh*ow]. */
function im2col2d(x: FloatArray, xBase: number, col: FloatArray, cg: number, g: WindowGeometry): void {
  const [h, w] = g.inDims as [number, number];
  const [oh, ow] = g.outDims as [number, number];
  const [kh, kw] = g.kernel as [number, number];
  const [sh, sw] = g.strides as [number, number];
  const [dh, dw] = g.dilations as [number, number];
  const [ph, pw] = g.padsBegin as [number, number];
  const outSize = oh * ow;
  let row = 0;
  for (let c = 0; c < cg; c++) {
    const xc = xBase + c * h * w;
    for (let ki = 0; ki < kh; ki++)
      for (let kj = 0; kj < kw; kj++, row += outSize) {
        const [ojStart, ojEnd] = validRange(ow, sw, kj * dw - pw, w);
        for (let oi = 0; oi < oh; oi++) {
          const dst = row + oi * ow;
          const y = oi * sh + ki * dh - ph;
          if (y < 0 || y >= h) {
            col.fill(0, dst, dst + ow);
            continue;
          }
          const src = xc + y * w + kj * dw - pw;
          for (let oj = 0; oj < ojStart; oj++) col[dst + oj] = 0;
          for (let oj = ojStart; oj < ojEnd; oj++) col[dst + oj] = x[src + oj * sw] as number;
          for (let oj = ojEnd; oj < ow; oj++) col[dst + oj] = 0;
        }
      }
  }
}

/** Depthwise 2-D convolution (one input and one output channel per group), direct loops. */
function depthwise2d(x: FloatArray, w: FloatArray, bias: ArrayLike<number> | undefined, y: FloatArray, p: ConvProblem): void {
  const g = p.geometry;
  const [h, wd] = g.inDims as [number, number];
  const [oh, ow] = g.outDims as [number, number];
  const [kh, kw] = g.kernel as [number, number];
  const [sh, sw] = g.strides as [number, number];
  const [dh, dw] = g.dilations as [number, number];
  const [ph, pw] = g.padsBegin as [number, number];
  for (let n = 0; n < p.batch; n++)
    for (let c = 0; c < p.outChannels; c++) {
      const xc = (n * p.inChannels + c) * h * wd;
      const yc = (n * p.outChannels + c) * oh * ow;
      y.fill(bias ? (bias[c] as number) : 0, yc, yc + oh * ow);
      for (let ki = 0; ki < kh; ki++)
        for (let kj = 0; kj < kw; kj++) {
          const weight = w[(c * kh + ki) * kw + kj] as number;
          const [ojStart, ojEnd] = validRange(ow, sw, kj * dw - pw, wd);
          const [oiStart, oiEnd] = validRange(oh, sh, ki * dh - ph, h);
          for (let oi = oiStart; oi < oiEnd; oi++) {
            const src = xc + (oi * sh + ki * dh - ph) * wd + kj * dw - pw;
            const dst = yc + oi * ow;
            for (let oj = ojStart; oj < ojEnd; oj++) y[dst + oj] = (y[dst + oj] as number) + weight * (x[src + oj * sw] as number);
          }
        }
    }
}

/** y = conv(x, w) + bias for any rank; x, w, y share one float array class. */
export function convForward(x: FloatArray, w: FloatArray, bias: ArrayLike<number> | undefined, y: FloatArray, p: ConvProblem): void {
  const g = p.geometry;
  const rank = g.inDims.length;
  const cg = p.inChannels / p.group;
  const mg = p.outChannels / p.group;
  if (rank === 2 && cg === 1 && mg === 1) {
    depthwise2d(x, w, bias, y, p);
    return;
  }
  const inSize = dimProduct(g.inDims);
  const outSize = dimProduct(g.outDims);
  const kSize = dimProduct(g.kernel);
  let identity = kSize === 1 && inSize === outSize && g.strides.every((s) => s === 1) && g.padsBegin.every((v) => v === 0);
  const table = identity || rank === 2 ? undefined : windowGatherTable(g);
  if (table) for (let o = 0; identity && o < outSize; o++) if (table[o] !== o) identity = false;
  const col: FloatArray = identity
    ? x
    : x instanceof Float64Array
      ? new Float64Array(cg * kSize * outSize)
      : new Float32Array(cg * kSize * outSize);
  for (let n = 0; n < p.batch; n++) {
    for (let grp = 0; grp < p.group; grp++) {
      const xBase = (n * p.inChannels + grp * cg) * inSize;
      if (!identity && table) {
        for (let c = 0; c < cg; c++) {
          const xc = xBase + c * inSize;
          for (let k = 0; k < kSize; k++) {
            const row = (c * kSize + k) * outSize;
            const t = k * outSize;
            for (let o = 0; o < outSize; o++) {
              const idx = table[t + o] as number;
              col[row + o] = idx >= 0 ? (x[xc + idx] as number) : 0;
            }
          }
        }
      } else if (!identity) im2col2d(x, xBase, col, cg, g);
      const yBase = (n * p.outChannels + grp * mg) * outSize;
      for (let m = 0; m < mg; m++) {
        const b = bias ? (bias[grp * mg + m] as number) : 0;
        y.fill(b, yBase + m * outSize, yBase + (m + 1) * outSize);
      }
      gemmAccumulate(w, grp * mg * cg * kSize, col, identity ? xBase : 0, y, yBase, { m: mg, k: cg * kSize, n: outSize });
    }
  }
}

/** Validates shapes and builds the problem for X [N,C,...] and W [M,C/group,k...]. */
export function convProblem(
  ctx: Pick<KernelContextV1, 'attrs' | 'opType' | 'nodeName'>,
  x: Pick<HostTensor, 'dims'>,
  w: Pick<HostTensor, 'dims'>,
): ConvProblem {
  if (x.dims.length < 3) throw kernelError(ctx, `X must have rank >= 3, got [${x.dims}]`);
  if (w.dims.length !== x.dims.length) throw kernelError(ctx, `W rank ${w.dims.length} differs from X rank ${x.dims.length}`);
  const group = ctx.attrs.int('group', 1);
  const inChannels = x.dims[1] as number;
  const outChannels = w.dims[0] as number;
  if (group < 1 || inChannels % group !== 0 || outChannels % group !== 0 || (w.dims[1] as number) * group !== inChannels) {
    throw kernelError(ctx, `channels do not match: X [${x.dims}], W [${w.dims}], group ${group}`);
  }
  const kernel = ctx.attrs.ints('kernel_shape', w.dims.slice(2));
  const attrs = readWindowAttrs(ctx.attrs, kernel);
  const geometry = windowGeometry({ ...attrs, ceilMode: false }, x.dims.slice(2));
  return { batch: x.dims[0] as number, inChannels, outChannels, group, geometry };
}

/** Values of t minus its zero point (one, or one per W's output channel), as float64. */
export function subtractZeroPoint(
  t: HostTensor,
  zp: HostTensor | undefined,
  channelAxisSize: number,
  perChannelStride: number,
): Float64Array {
  const v = readFloat64(t);
  const out = new Float64Array(v);
  if (!zp) return out;
  const z = readFloat64(zp);
  if (z.length <= 1) {
    const zv = z[0] ?? 0;
    for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) - zv;
    return out;
  }
  // per output channel (W's axis 0)
  for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) - (z[Math.floor(i / perChannelStride) % channelAxisSize] as number);
  return out;
}

export const convKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'Conv',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const w = requireTensor(ctx, 1);
      const p = convProblem(ctx, x, w);
      const bias = hasInput(ctx, 2) ? readFloats(requireTensor(ctx, 2)) : undefined;
      if (bias && bias.length !== p.outChannels) throw kernelError(ctx, `B has ${bias.length} elements, expected ${p.outChannels}`);
      let xs = readFloats(x);
      let ws = readFloats(w);
      const out = floatOutput(ctx, 0, [p.batch, p.outChannels, ...p.geometry.outDims], x.type);
      // keep one array class through the hot loops
      if (out.data instanceof Float64Array) {
        if (!(xs instanceof Float64Array)) xs = Float64Array.from(xs);
        if (!(ws instanceof Float64Array)) ws = Float64Array.from(ws);
      }
      convForward(xs, ws, bias, out.data, p);
      out.commit();
    },
  }),
  defineKernel({
    opType: 'ConvInteger',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const w = requireTensor(ctx, 1);
      const p = convProblem(ctx, x, w);
      const wPerChannel = dimProduct(w.dims, 1);
      const xs = subtractZeroPoint(x, ctx.tensor(2), 1, x.data.length || 1);
      const ws = subtractZeroPoint(w, ctx.tensor(3), p.outChannels, wPerChannel || 1);
      const dims = [p.batch, p.outChannels, ...p.geometry.outDims];
      const acc = new Float64Array(dimProduct(dims));
      convForward(xs, ws, undefined, acc, p);
      const y = ctx.output(0, dims, 'int32').data as Int32Array;
      for (let i = 0; i < acc.length; i++) y[i] = acc[i] as number;
    },
  }),
  defineKernel({
    opType: 'QLinearConv',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const w = requireTensor(ctx, 3);
      const p = convProblem(ctx, x, w);
      const wPerChannel = dimProduct(w.dims, 1) || 1;
      const xs = subtractZeroPoint(x, ctx.tensor(2), 1, x.data.length || 1);
      const ws = subtractZeroPoint(w, ctx.tensor(5), p.outChannels, wPerChannel);
      const bias = hasInput(ctx, 8) ? readFloat64(requireTensor(ctx, 8)) : undefined;
      const dims = [p.batch, p.outChannels, ...p.geometry.outDims];
      const acc = new Float64Array(dimProduct(dims));
      convForward(xs, ws, bias, acc, p);
      const xScale = readFloat64(requireTensor(ctx, 1))[0] ?? 1;
      const wScale = readFloat64(requireTensor(ctx, 4));
      const yScale = readFloat64(requireTensor(ctx, 6))[0] ?? 1;
      const yzpTensor = requireTensor(ctx, 7);
      const yzp = readFloat64(yzpTensor)[0] ?? 0;
      const [lo, hi] = integerRange(yzpTensor.type);
      const outSize = dimProduct(p.geometry.outDims);
      const y = ctx.output(0, dims, yzpTensor.type).data as Uint8Array | Int8Array;
      for (let i = 0; i < acc.length; i++) {
        const m = Math.floor(i / outSize) % p.outChannels;
        const ws1 = wScale.length === 1 ? (wScale[0] as number) : (wScale[m] as number);
        // scale in float32 as the reference does, then round half to even
        const scale = Math.fround((xScale * ws1) / yScale);
        const q = roundHalfEven((acc[i] as number) * scale) + yzp;
        y[i] = q < lo ? lo : Math.min(q, hi);
      }
    },
  }),
];
