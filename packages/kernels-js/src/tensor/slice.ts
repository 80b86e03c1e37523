// Slice: per-axis start/end/step with the spec's clamping, then one strided copy.
import { copyByAxisTables, linearTable, rowMajorStrides } from '../common/tensor-copy.js';
import { intList, kernelError, requireTensor } from '../common/tensor-infer.js';
import { whereOf, type SliceArgs, sliceArgs, clampSlice } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';

export const sliceKernel = defineKernel({
  opType: 'Slice',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const rank = x.dims.length;
    const axesT = ctx.tensor(3);
    const stepsT = ctx.tensor(4);
    let args: SliceArgs;
    try {
      args = sliceArgs(
        intList(requireTensor(ctx, 1)),
        intList(requireTensor(ctx, 2)),
        axesT ? intList(axesT) : undefined,
        stepsT ? intList(stepsT) : undefined,
        rank,
        whereOf(ctx),
      );
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    const strides = rowMajorStrides(x.dims);
    const outDims = [...x.dims];
    const tables = x.dims.map((d, i) => linearTable(d, strides[i] as number));
    args.axes.forEach((a, i) => {
      const s = clampSlice(x.dims[a] as number, args.starts[i] as number, args.ends[i] as number, args.steps[i] as number);
      outDims[a] = s.count;
      tables[a] = linearTable(s.count, s.step * (strides[a] as number), s.start * (strides[a] as number));
    });
    const y = ctx.output(0, outDims, x.type);
    copyByAxisTables(x.data, y.data, outDims, tables);
  },
});
export const sliceKernels = [sliceKernel];
