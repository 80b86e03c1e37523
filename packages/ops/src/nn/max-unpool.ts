/** MaxUnpool: scatters pooled values back to the flat positions MaxPool's Indices recorded. */
import type { KernelV1, OpDefinitionV1, Shape } from '@tsge/metadef';
import { isUnknownRank, toNumberArray } from '@tsge/metadef';
import {
  NN_FLOAT_TYPES,
  dimProduct,
  floatOutput,
  hasInput,
  inputInfo,
  kernelError,
  readFloats,
  requireTensor,
} from '../common/nn-float-io.js';
import { defineKernel, defineOp, param } from '../define.js';

function unpoolDims(dims: readonly number[], kernel: readonly number[], strides: readonly number[], pads: readonly number[]): number[] {
  const n = kernel.length;
  return dims.slice(2).map((d, i) => (d - 1) * ((strides[i] as number) ?? 1) + (kernel[i] as number) - (pads[i] ?? 0) - (pads[i + n] ?? 0));
}

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

export const maxUnpoolOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'MaxUnpool',
    sinceVersion: 22,
    inputs: [param.required('X', 'T1'), param.required('I', 'T2'), param.optional('output_shape', 'T2')],
    outputs: [param.required('output', 'T1')],
    attributes: [
      { name: 'kernel_shape', kind: 'ints', required: true },
      { name: 'pads', kind: 'ints' },
      { name: 'strides', kind: 'ints' },
    ],
    typeConstraints: [
      { name: 'T1', allowed: NN_FLOAT_TYPES },
      { name: 'T2', allowed: ['int64'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const given = ctx.inputValue(2);
      if (given) {
        ctx.setOutput(0, { dtype: x.dtype, shape: toNumberArray(given) });
        return;
      }
      if (ctx.input(2) || isUnknownRank(x.shape)) {
        ctx.setOutput(0, { dtype: x.dtype, shape: isUnknownRank(x.shape) ? x.shape : x.shape.map(() => -1) });
        return;
      }
      const kernel = ctx.attrs.ints('kernel_shape');
      const strides = ctx.attrs.ints(
        'strides',
        kernel.map(() => 1),
      );
      const pads = ctx.attrs.ints('pads', [...kernel.map(() => 0), ...kernel.map(() => 0)]);
      const spatial: Shape[number][] = x.shape
        .slice(2)
        .map((d, i) =>
          typeof d === 'number' && d >= 0
            ? (unpoolDims(
                [0, 0, d],
                [kernel[i] as number],
                [strides[i] as number],
                [pads[i] as number, pads[i + kernel.length] as number],
              )[0] as number)
            : -1,
        );
      ctx.setOutput(0, { dtype: x.dtype, shape: [x.shape[0] as Shape[number], x.shape[1] as Shape[number], ...spatial] });
    },
  }),
];

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
