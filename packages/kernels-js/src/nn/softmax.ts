/** Softmax and LogSoftmax along one axis (opset 13); older opsets flatten at `axis` first. */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { dimProduct } from '@tsge/ops/kernel-support';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

type Mode = 'softmax' | 'log';

function runSoftmax(ctx: KernelContextV1, mode: Mode): void {
  const x = requireTensor(ctx, 0);
  const rank = x.dims.length;
  const legacy = ctx.opsetVersion > 0 && ctx.opsetVersion < 13;
  let axis = ctx.attrs.int('axis', legacy ? 1 : -1);
  if (rank === 0) axis = 0;
  else {
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) throw kernelError(ctx, `axis ${ctx.attrs.int('axis', -1)} out of range for rank ${rank}`);
  }
  // opset < 13 coerces to 2-D [outer, inner] at axis; opset 13 reduces one axis only
  const outer = rank === 0 ? 1 : dimProduct(x.dims, 0, axis);
  const size = rank === 0 ? 1 : legacy ? dimProduct(x.dims, axis) : (x.dims[axis] as number);
  const inner = rank === 0 || legacy ? 1 : dimProduct(x.dims, axis + 1);
  const xs = readFloats(x);
  const out = floatOutput(ctx, 0, x.dims, x.type);
  const y = out.data;
  for (let o = 0; o < outer; o++) {
    for (let k = 0; k < inner; k++) {
      const base = o * size * inner + k;
      let max = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < size; j++) {
        const v = xs[base + j * inner] as number;
        if (v > max) max = v;
      }
      let sum = 0;
      for (let j = 0; j < size; j++) sum += Math.exp((xs[base + j * inner] as number) - max);
      if (mode === 'log') {
        const logSum = Math.log(sum) + max;
        for (let j = 0; j < size; j++) y[base + j * inner] = (xs[base + j * inner] as number) - logSum;
      } else {
        for (let j = 0; j < size; j++) y[base + j * inner] = Math.exp((xs[base + j * inner] as number) - max) / sum;
      }
    }
  }
  out.commit();
}

export const softmaxKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'Softmax', compute: (ctx) => runSoftmax(ctx, 'softmax') }),
  defineKernel({ opType: 'LogSoftmax', compute: (ctx) => runSoftmax(ctx, 'log') }),
];
