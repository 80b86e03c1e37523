/** Clip (min/max as optional inputs) and Shrink. */
import { type HostTensor, type KernelV1, readNumber } from '@tsge/metadef';
import { numberOutput, numbersOf, toBigInt } from '../common/math-values.js';
import { requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

/** A bound's first element as a BigInt, whatever dtype a (possibly malformed) model gave it. */
function bigBound(t: HostTensor): bigint {
  const v = t.data[0];
  return typeof v === 'bigint' ? v : toBigInt(readNumber(t, 0));
}

export const clipShrinkKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'Clip',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const minT = ctx.tensor(1);
      const maxT = ctx.tensor(2);
      // legacy (opset < 11) bounds arrive as attributes when the parser left them there
      const lo = minT && minT.data.length > 0 ? readNumber(minT, 0) : ctx.attrs.float('min', Number.NEGATIVE_INFINITY);
      const hi = maxT && maxT.data.length > 0 ? readNumber(maxT, 0) : ctx.attrs.float('max', Number.POSITIVE_INFINITY);
      if ((x.type === 'int64' || x.type === 'uint64') && lo <= hi) {
        // exact 64-bit bounds
        const source = x.data as BigInt64Array;
        const target = ctx.output(0, x.dims, x.type).data as BigInt64Array;
        const low = minT && minT.data.length > 0 ? bigBound(minT) : undefined;
        const high = maxT && maxT.data.length > 0 ? bigBound(maxT) : undefined;
        for (let i = 0; i < source.length; i++) {
          let v = source[i]!;
          if (low !== undefined && v < low) v = low;
          if (high !== undefined && v > high) v = high;
          target[i] = v;
        }
        return;
      }
      const src = numbersOf(x);
      const out = numberOutput(ctx, 0, x.dims, x.type);
      const dst = out.values;
      for (let i = 0; i < src.length; i++) {
        const v = src[i]!;
        dst[i] = v < lo ? lo : Math.min(v, hi);
      }
      if (lo > hi) dst.fill(hi);
      out.commit();
    },
  }),
  defineKernel({
    opType: 'Shrink',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const bias = ctx.attrs.float('bias', 0);
      const lambd = ctx.attrs.float('lambd', 0.5);
      const src = numbersOf(x);
      const out = numberOutput(ctx, 0, x.dims, x.type);
      const dst = out.values;
      for (let i = 0; i < src.length; i++) {
        const v = src[i]!;
        dst[i] = v < -lambd ? v + bias : v > lambd ? v - bias : 0;
      }
      out.commit();
    },
  }),
];
