/**
 * com.microsoft DynamicQuantizeMatMul reference kernel: A quantized to uint8 per tensor as
 * DynamicQuantizeLinear does, an exact integer product with B, rescaled by a_scale · b_scale[n].
 */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { roundHalfEven } from '@tsge/ops/kernel-support';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { hasInput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';

/** Per-column values of a scalar or [N] tensor. */
function perColumn(ctx: KernelContextV1, index: number, n: number, what: string): ArrayLike<number> | undefined {
  if (!hasInput(ctx, index)) return undefined;
  const v = readFloats(requireTensor(ctx, index));
  if (v.length === 1) return Array.from({ length: n }, () => v[0] as number);
  if (v.length !== n) throw kernelError(ctx, `${what} must be a scalar or hold N = ${n} values, got ${v.length}`);
  return v;
}

function compute(ctx: KernelContextV1): void {
  const a = requireTensor(ctx, 0);
  const b = requireTensor(ctx, 1);
  if (b.dims.length !== 2) throw kernelError(ctx, `B must be 2-D [K, N], got [${b.dims}]`);
  if (b.type !== 'int8' && b.type !== 'uint8') throw kernelError(ctx, `B must be int8 or uint8, got ${b.type}`);
  const [K, N] = b.dims as [number, number];
  if (a.dims[a.dims.length - 1] !== K) throw kernelError(ctx, `A [${a.dims}] must end in K = ${K}`);
  const xs = readFloats(a);
  let lo = 0;
  let hi = 0;
  for (const v of xs) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  // float32 arithmetic, as onnxruntime computes the parameters: a value landing on .4999 in float32
  // rounds differently than in float64
  const aScale = Math.fround((hi - lo) / 255);
  const aZero = aScale === 0 ? 0 : Math.min(255, Math.max(0, roundHalfEven(Math.fround(-Math.fround(lo / aScale)))));
  const qa = new Int32Array(xs.length);
  for (let i = 0; i < xs.length; i++)
    qa[i] = aScale === 0 ? 0 : Math.min(255, Math.max(0, roundHalfEven(Math.fround((xs[i] as number) / aScale)) + aZero)) - aZero;
  requireTensor(ctx, 2);
  const bScale = perColumn(ctx, 2, N, 'b_scale') as ArrayLike<number>;
  const bZero = perColumn(ctx, 3, N, 'b_zero_point');
  const bias = perColumn(ctx, 4, N, 'bias');
  const bs = b.data as Int8Array | Uint8Array;
  const rows = xs.length / K;
  const outDims = a.dims.length === 1 ? [N] : [...a.dims.slice(0, -1), N];
  const y = ctx.output(0, outDims, 'float32').data as Float32Array;
  for (let r = 0; r < rows; r++)
    for (let n = 0; n < N; n++) {
      const zb = bZero ? (bZero[n] as number) : 0;
      let acc = 0;
      for (let k = 0; k < K; k++) acc += (qa[r * K + k] as number) * ((bs[k * N + n] as number) - zb);
      y[r * N + n] = acc * aScale * (bScale[n] as number) + (bias ? (bias[n] as number) : 0);
    }
}

export const dynamicQuantizeMatMulKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'DynamicQuantizeMatMul', domain: 'com.microsoft', compute }),
];
