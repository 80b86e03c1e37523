/** TopK (largest/smallest, sorted, ties broken by lower index) and Hardmax. */
import { type KernelV1, toNumberArray } from '@tsge/metadef';
import { numberOutput, numbersOf } from '../common/math-values.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { normalizeAxis } from '@tsge/ops/kernel-support';

export const topkHardmaxKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'TopK',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const rank = x.dims.length;
      const axis = normalizeAxis(ctx.attrs.int('axis', -1), rank);
      if (axis === undefined) throw kernelError(ctx, 'axis out of range');
      // TopK-1 carried k as an attribute
      const kTensor = ctx.tensor(1);
      const k = kTensor ? (toNumberArray(kTensor)[0] ?? 0) : ctx.attrs.int('k', 0);
      const size = x.dims[axis]!;
      if (!Number.isInteger(k) || k < 0 || k > size) throw kernelError(ctx, `k ${k} is not an integer in [0, ${size}]`);
      const largest = ctx.attrs.int('largest', 1) !== 0;
      let inner = 1;
      for (let i = axis + 1; i < rank; i++) inner *= x.dims[i]!;
      const outer = size * inner === 0 ? 0 : x.data.length / (size * inner);
      const outDims = x.dims.map((d, i) => (i === axis ? k : d));
      const src = numbersOf(x);
      const values = numberOutput(ctx, 0, outDims, x.type);
      const indices = ctx.output(1, outDims, 'int64').data as BigInt64Array;
      const order = new Array<number>(size);
      const slice = new Float64Array(size);
      // sorting is stable, so equal values keep ascending index order; NaN sorts as the largest
      const compare = largest
        ? (p: number, q: number) => (Number.isNaN(slice[p]!) ? -1 : Number.isNaN(slice[q]!) ? 1 : slice[q]! - slice[p]!)
        : (p: number, q: number) => (Number.isNaN(slice[p]!) ? 1 : Number.isNaN(slice[q]!) ? -1 : slice[p]! - slice[q]!);
      for (let o = 0; o < outer; o++) {
        for (let j = 0; j < inner; j++) {
          const base = o * size * inner + j;
          for (let t = 0; t < size; t++) {
            order[t] = t;
            slice[t] = src[base + t * inner]!;
          }
          order.sort(compare);
          const outBase = o * k * inner + j;
          for (let t = 0; t < k; t++) {
            values.values[outBase + t * inner] = slice[order[t]!]!;
            indices[outBase + t * inner] = BigInt(order[t]!);
          }
        }
      }
      values.commit();
    },
  }),
  defineKernel({
    opType: 'Hardmax',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const rank = x.dims.length;
      // before opset 13 the input was flattened to 2-D at `axis` (default 1), then one-hot per row
      const legacy = ctx.opsetVersion > 0 && ctx.opsetVersion < 13;
      const axis = normalizeAxis(ctx.attrs.int('axis', legacy ? 1 : -1), rank);
      if (axis === undefined) throw kernelError(ctx, 'axis out of range');
      let size = x.dims[axis]!;
      let inner = 1;
      for (let i = axis + 1; i < rank; i++) inner *= x.dims[i]!;
      if (legacy) {
        size *= inner;
        inner = 1;
      }
      const outer = size * inner === 0 ? 0 : x.data.length / (size * inner);
      const src = numbersOf(x);
      const out = numberOutput(ctx, 0, x.dims, x.type);
      out.values.fill(0);
      for (let o = 0; o < outer; o++) {
        for (let j = 0; j < inner; j++) {
          const base = o * size * inner + j;
          let best = 0;
          for (let t = 1; t < size; t++) if (src[base + t * inner]! > src[base + best * inner]!) best = t;
          out.values[base + best * inner] = 1;
        }
      }
      out.commit();
    },
  }),
];
