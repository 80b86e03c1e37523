/** CenterCropPad: crops or zero-pads each listed axis symmetrically to the requested size. */
import { type KernelV1, toNumberArray } from '@tsge/metadef';
import { dimProduct } from '@tsge/ops/kernel-support';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

export const centerCropPadKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'CenterCropPad',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const rank = x.dims.length;
      const sizes = toNumberArray(requireTensor(ctx, 1));
      const axes = ctx.attrs.ints('axes', [...Array(rank).keys()]).map((a) => (a < 0 ? a + rank : a));
      if (axes.length !== sizes.length || axes.some((a) => a < 0 || a >= rank))
        throw kernelError(ctx, 'axes and shape do not match the input rank');
      const outDims = [...x.dims];
      // per axis: source index = output index + shift (crop: positive shift, pad: negative)
      const shift = new Array<number>(rank).fill(0);
      axes.forEach((a, i) => {
        const target = sizes[i] as number;
        if (target < 0) throw kernelError(ctx, `negative target size ${target}`);
        const size = x.dims[a] as number;
        outDims[a] = target;
        shift[a] = size >= target ? Math.floor((size - target) / 2) : -Math.floor((target - size) / 2);
      });
      const y = ctx.output(0, outDims, x.type);
      const src = x.data as unknown as { [i: number]: unknown };
      const dst = y.data as unknown as { [i: number]: unknown };
      const zero: unknown = x.type === 'string' ? '' : x.data instanceof BigInt64Array || x.data instanceof BigUint64Array ? 0n : 0;
      const total = dimProduct(outDims);
      const idx = new Array<number>(rank).fill(0);
      for (let o = 0; o < total; o++) {
        let flat = 0;
        let inside = true;
        for (let a = 0; a < rank; a++) {
          const pos = (idx[a] as number) + (shift[a] as number);
          if (pos < 0 || pos >= (x.dims[a] as number)) inside = false;
          flat = flat * (x.dims[a] as number) + pos;
        }
        dst[o] = inside ? src[flat] : zero;
        for (let a = rank - 1; a >= 0; a--) {
          idx[a]++;
          if ((idx[a] as number) < (outDims[a] as number)) break;
          idx[a] = 0;
        }
      }
    },
  }),
];
