/** CumSum and CumProd along an axis given as input, with exclusive and reverse modes. */
import { type KernelContextV1, type KernelV1, toNumberArray } from '@tsge/metadef';
import { numberOutput, numbersOf } from '../common/math-values.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

function computeCumulative(ctx: KernelContextV1, product: boolean): void {
  const x = requireTensor(ctx, 0);
  const axisTensor = requireTensor(ctx, 1);
  const rank = x.dims.length;
  const a = toNumberArray(axisTensor)[0] ?? 0;
  const axis = a < 0 ? a + rank : a;
  if (axis < 0 || axis >= Math.max(rank, 1)) throw kernelError(ctx, `axis ${a} out of range for rank ${rank}`);
  const exclusive = ctx.attrs.int('exclusive', 0) !== 0;
  const reverse = ctx.attrs.int('reverse', 0) !== 0;
  const size = rank === 0 ? 1 : x.dims[axis]!;
  let inner = 1;
  for (let i = axis + 1; i < rank; i++) inner *= x.dims[i]!;
  const total = x.data.length;
  const outer = size * inner === 0 ? 0 : total / (size * inner);
  if (x.type === 'int64' || x.type === 'uint64') {
    // exact 64-bit accumulation
    const source = x.data as BigInt64Array;
    const target = ctx.output(0, x.dims, x.type).data as BigInt64Array;
    for (let o = 0; o < outer; o++) {
      for (let j = 0; j < inner; j++) {
        const base = o * size * inner + j;
        let running = product ? 1n : 0n;
        for (let t = 0; t < size; t++) {
          const p = base + (reverse ? size - 1 - t : t) * inner;
          const v = source[p]!;
          if (exclusive) target[p] = running;
          running = product ? running * v : running + v;
          if (!exclusive) target[p] = running;
        }
      }
    }
    return;
  }
  const src = numbersOf(x);
  const acc = new Float64Array(total);
  const identity = product ? 1 : 0;
  for (let o = 0; o < outer; o++) {
    for (let j = 0; j < inner; j++) {
      const base = o * size * inner + j;
      let running = identity;
      for (let t = 0; t < size; t++) {
        const k = reverse ? size - 1 - t : t;
        const p = base + k * inner;
        if (exclusive) {
          acc[p] = running;
          running = product ? running * src[p]! : running + src[p]!;
        } else {
          running = product ? running * src[p]! : running + src[p]!;
          acc[p] = running;
        }
      }
    }
  }
  const out = numberOutput(ctx, 0, x.dims, x.type);
  out.values.set(acc);
  out.commit();
}

export const cumulativeKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'CumSum', compute: (ctx) => computeCumulative(ctx, false) }),
  defineKernel({ opType: 'CumProd', compute: (ctx) => computeCumulative(ctx, true) }),
];
