// Shape and Size: metadata of a tensor as int64 tensors.
import { requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';
import { shapeRange } from '@tsge/ops/kernel-support';

export const shapeKernel = defineKernel({
  opType: 'Shape',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const end = ctx.attrs.has('end') ? ctx.attrs.int('end') : undefined;
    const [s, e] = shapeRange(x.dims.length, ctx.attrs.int('start', 0), end);
    const y = ctx.output(0, [e - s], 'int64');
    const data = y.data as BigInt64Array;
    for (let i = s; i < e; i++) data[i - s] = BigInt(x.dims[i] as number);
  },
});

export const sizeKernel = defineKernel({
  opType: 'Size',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    let n = 1;
    for (const d of x.dims) n *= d;
    const y = ctx.output(0, [], 'int64');
    (y.data as BigInt64Array)[0] = BigInt(n);
  },
});
export const shapeKernels = [shapeKernel, sizeKernel];
