/** MaxUnpool: scatters pooled values back to the flat positions MaxPool's Indices recorded. */
import { type KernelV1, toNumberArray } from '@tsge/metadef';
import { dimProduct, unpoolDims } from '@tsge/ops/kernel-support';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

/** Flat index in `from` → the same coordinates flattened in `to` (-1 when they fall outside). */
function relocate(index: number, from: readonly number[], to: readonly number[]): number {
  let rest = index;
  let flat = 0;
  let scale = 1;
  for (let a = from.length - 1; a >= 0; a--) {
    const size = from[a] as number;
    const coordinate = rest % size;
    rest = (rest - coordinate) / size;
    if (coordinate >= (to[a] as number)) return -1;
    flat += coordinate * scale;
    scale *= to[a] as number;
  }
  return rest > 0 ? -1 : flat;
}

export const maxUnpoolKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'MaxUnpool',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const indices = requireTensor(ctx, 1);
      if (dimProduct(indices.dims) !== dimProduct(x.dims)) throw kernelError(ctx, 'I must have the shape of X');
      const kernel = ctx.attrs.ints('kernel_shape');
      const strides = ctx.attrs.ints(
        'strides',
        kernel.map(() => 1),
      );
      const pads = ctx.attrs.ints('pads', [...kernel.map(() => 0), ...kernel.map(() => 0)]);
      const defaultDims = [x.dims[0] as number, x.dims[1] as number, ...unpoolDims(x.dims, kernel, strides, pads)];
      const outDims = hasInput(ctx, 2) ? toNumberArray(requireTensor(ctx, 2)) : defaultDims;
      if (outDims.length !== defaultDims.length) throw kernelError(ctx, `output_shape must have rank ${defaultDims.length}`);
      // indices address the default unpooled layout; re-place them when output_shape differs
      const remap = outDims.some((d, i) => d !== defaultDims[i]);
      const xs = readFloats(x);
      const out = floatOutput(ctx, 0, outDims, x.type);
      out.data.fill(0);
      const total = out.data.length;
      for (let i = 0; i < xs.length; i++) {
        const raw = Number(indices.data[i]);
        const target = remap ? relocate(raw, defaultDims, outDims) : raw;
        if (target < 0 || target >= total) throw kernelError(ctx, `index ${target} outside the output`);
        out.data[target] = xs[i] as number;
      }
      out.commit();
    },
  }),
];
