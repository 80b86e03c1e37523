/** NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss with reduction, weights and ignore_index. */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { type FloatArray, dimProduct } from '@tsge/ops/kernel-support';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

/** Loss from log-probabilities laid out [N, C, inner]; writes output 0. */
function nllLoss(
  ctx: KernelContextV1,
  logProb: FloatArray,
  dims: readonly number[],
  dtype: 'float32' | 'float64' | 'float16' | 'bfloat16',
): void {
  const target = requireTensor(ctx, 1);
  const targets = target.data;
  const n = dims[0] as number;
  const c = dims[1] as number;
  const inner = dimProduct(dims, 2);
  if (dimProduct(target.dims) !== n * inner) throw kernelError(ctx, `target [${target.dims}] does not match input [${dims}]`);
  const weights = hasInput(ctx, 2) ? readFloats(requireTensor(ctx, 2)) : undefined;
  const hasIgnore = ctx.attrs.has('ignore_index');
  const ignore = ctx.attrs.int('ignore_index', 0);
  const reduction = ctx.attrs.string('reduction', 'mean');
  const count = n * inner;
  const losses = new Float64Array(count);
  let weightSum = 0;
  for (let b = 0; b < n; b++)
    for (let i = 0; i < inner; i++) {
      const t = Number(targets[b * inner + i]);
      if (hasIgnore && t === ignore) continue;
      if (t < 0 || t >= c) throw kernelError(ctx, `target ${t} is outside [0, ${c})`);
      const w = weights ? (weights[t] as number) : 1;
      losses[b * inner + i] = -(logProb[(b * c + t) * inner + i] as number) * w;
      weightSum += w;
    }
  if (reduction === 'none') {
    const out = floatOutput(ctx, 0, [n, ...dims.slice(2)], dtype);
    out.data.set(losses);
    out.commit();
    return;
  }
  let sum = 0;
  for (let i = 0; i < count; i++) sum += losses[i] as number;
  const out = floatOutput(ctx, 0, [], dtype);
  if (reduction === 'sum') out.data[0] = sum;
  else if (reduction === 'mean') out.data[0] = sum / weightSum;
  else throw kernelError(ctx, `unknown reduction ${reduction}`);
  out.commit();
}

export const lossKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'NegativeLogLikelihoodLoss',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      if (x.dims.length < 2) throw kernelError(ctx, 'input must have rank >= 2');
      nllLoss(ctx, readFloats(x), x.dims, x.type as 'float32');
    },
  }),
  defineKernel({
    opType: 'SoftmaxCrossEntropyLoss',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      if (x.dims.length < 2) throw kernelError(ctx, 'scores must have rank >= 2');
      const xs = readFloats(x);
      const n = x.dims[0] as number;
      const c = x.dims[1] as number;
      const inner = dimProduct(x.dims, 2);
      const logProb = new Float64Array(xs.length);
      for (let b = 0; b < n; b++)
        for (let i = 0; i < inner; i++) {
          const base = b * c * inner + i;
          let max = Number.NEGATIVE_INFINITY;
          for (let k = 0; k < c; k++) max = Math.max(max, xs[base + k * inner] as number);
          let sum = 0;
          for (let k = 0; k < c; k++) sum += Math.exp((xs[base + k * inner] as number) - max);
          const logSum = Math.log(sum) + max;
          for (let k = 0; k < c; k++) logProb[base + k * inner] = (xs[base + k * inner] as number) - logSum;
        }
      nllLoss(ctx, logProb, x.dims, x.type as 'float32');
      if (ctx.outputCount > 1) {
        const lp = floatOutput(ctx, 1, x.dims, x.type);
        lp.data.set(logProb);
        lp.commit();
      }
    },
  }),
];
