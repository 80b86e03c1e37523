/** CenterCropPad: crops or zero-pads each listed axis symmetrically to the requested size. */
import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { ALL_TENSOR_TYPES, isUnknownRank, toNumberArray } from '@tsge/metadef';
import { dimProduct, inputInfo, kernelError, requireTensor } from '../common/nn-float-io.js';
import { defineKernel, defineOp, param } from '../define.js';

export const centerCropPadOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'CenterCropPad',
    sinceVersion: 18,
    inputs: [param.required('input_data', 'T'), param.required('shape', 'Tind')],
    outputs: [param.required('output_data', 'T')],
    attributes: [{ name: 'axes', kind: 'ints' }],
    typeConstraints: [
      { name: 'T', allowed: ALL_TENSOR_TYPES },
      { name: 'Tind', allowed: ['int32', 'int64'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const shape = ctx.inputValue(1);
      if (isUnknownRank(x.shape) || !shape) {
        ctx.setOutput(0, { dtype: x.dtype, shape: isUnknownRank(x.shape) ? x.shape : x.shape.map(() => -1) });
        return;
      }
      const rank = x.shape.length;
      const sizes = toNumberArray(shape);
      const axes = ctx.attrs.ints('axes', [...Array(rank).keys()]).map((a) => (a < 0 ? a + rank : a));
      const out = [...x.shape];
      axes.forEach((a, i) => {
        out[a] = sizes[i] as number;
      });
      ctx.setOutput(0, { dtype: x.dtype, shape: out });
    },
  }),
];

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
