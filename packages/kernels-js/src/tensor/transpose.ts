// Transpose: permutes axes with one odometer pass over the output.
import { transposeInto } from '../common/tensor-copy.js';
import { kernelError, requireTensor } from '../common/tensor-infer.js';
import { whereOf, permutation } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';

export const transposeKernel = defineKernel({
  opType: 'Transpose',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const attrPerm = ctx.attrs.has('perm') ? ctx.attrs.ints('perm') : undefined;
    let perm: number[];
    try {
      perm = permutation(attrPerm, x.dims.length, whereOf(ctx));
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    const y = ctx.output(
      0,
      perm.map((p) => x.dims[p] as number),
      x.type,
    );
    transposeInto(x.data, y.data, x.dims, perm);
  },
});
export const transposeKernels = [transposeKernel];
