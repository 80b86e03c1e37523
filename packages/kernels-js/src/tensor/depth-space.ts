// DepthToSpace and SpaceToDepth: a 6-D reshape-transpose-reshape, done as one permuted copy.
import { transposeInto } from '../common/tensor-copy.js';
import { kernelError, requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';

export const depthToSpaceKernel = defineKernel({
  opType: 'DepthToSpace',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const b = ctx.attrs.int('blocksize');
    if (x.dims.length !== 4 || b <= 0 || (x.dims[1] as number) % (b * b) !== 0)
      throw kernelError(ctx, `cannot rearrange [${x.dims.join(',')}] by blocksize ${b}`);
    const [n, c, h, w] = x.dims as [number, number, number, number];
    const c2 = c / (b * b);
    const crd = ctx.attrs.string('mode', 'DCR') === 'CRD';
    const y = ctx.output(0, [n, c2, h * b, w * b], x.type);
    if (crd) transposeInto(x.data, y.data, [n, c2, b, b, h, w], [0, 1, 4, 2, 5, 3]);
    else transposeInto(x.data, y.data, [n, b, b, c2, h, w], [0, 3, 4, 1, 5, 2]);
  },
});

export const spaceToDepthKernel = defineKernel({
  opType: 'SpaceToDepth',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const b = ctx.attrs.int('blocksize');
    if (x.dims.length !== 4 || b <= 0 || (x.dims[2] as number) % b !== 0 || (x.dims[3] as number) % b !== 0)
      throw kernelError(ctx, `cannot rearrange [${x.dims.join(',')}] by blocksize ${b}`);
    const [n, c, h, w] = x.dims as [number, number, number, number];
    const y = ctx.output(0, [n, c * b * b, h / b, w / b], x.type);
    transposeInto(x.data, y.data, [n, c, h / b, b, w / b, b], [0, 3, 5, 1, 2, 4]);
  },
});
export const depthSpaceKernels = [depthToSpaceKernel, spaceToDepthKernel];
