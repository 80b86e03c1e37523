// ReverseSequence: reverse the first sequence_lens[b] steps of each batch entry along the time axis.
import { copyBlock, rowMajorStrides } from '../common/tensor-copy.js';
import { indexValues, kernelError, requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';

export const reverseSequenceKernel = defineKernel({
  opType: 'ReverseSequence',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const lens = indexValues(requireTensor(ctx, 1));
    const batchAxis = ctx.attrs.int('batch_axis', 1);
    const timeAxis = ctx.attrs.int('time_axis', 0);
    if (x.dims.length < 2 || ![0, 1].includes(batchAxis) || ![0, 1].includes(timeAxis) || batchAxis === timeAxis)
      throw kernelError(ctx, 'batch_axis and time_axis must be 0 and 1 on a tensor of rank ≥ 2');
    const batch = x.dims[batchAxis] as number;
    const time = x.dims[timeAxis] as number;
    if (lens.length !== batch) throw kernelError(ctx, `sequence_lens has ${lens.length} entries for batch ${batch}`);
    const strides = rowMajorStrides(x.dims);
    const inner = strides[1] as number; // elements after the two leading axes
    const y = ctx.output(0, x.dims, x.type);
    const bStride = strides[batchAxis] as number;
    const tStride = strides[timeAxis] as number;
    for (let b = 0; b < batch; b++) {
      const len = lens[b] as number;
      if (len < 0 || len > time) throw kernelError(ctx, `sequence length ${len} is outside [0, ${time}]`);
      for (let t = 0; t < time; t++) {
        const from = t < len ? len - 1 - t : t;
        copyBlock(x.data, b * bStride + from * tStride, y.data, b * bStride + t * tStride, inner);
      }
    }
  },
});
export const reverseSequenceKernels = [reverseSequenceKernel];
