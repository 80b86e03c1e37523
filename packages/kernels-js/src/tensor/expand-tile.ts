// Expand (bidirectional broadcast to a shape) and Tile (repeat along each axis).
import { broadcastDims } from '../common/broadcast.js';
import { copyByAxisTables, linearTable, rowMajorStrides } from '../common/tensor-copy.js';
import { intList, kernelError, requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';

export const expandKernel = defineKernel({
  opType: 'Expand',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    let outDims: number[];
    try {
      outDims = broadcastDims(x.dims, intList(requireTensor(ctx, 1)));
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    const rank = outDims.length;
    const offset = rank - x.dims.length;
    const strides = rowMajorStrides(x.dims);
    const tables = outDims.map((d, i) => {
      const inDim = i < offset ? 1 : (x.dims[i - offset] as number);
      return linearTable(d, inDim === 1 ? 0 : (strides[i - offset] as number));
    });
    const y = ctx.output(0, outDims, x.type);
    copyByAxisTables(x.data, y.data, outDims, tables);
  },
});

export const tileKernel = defineKernel({
  opType: 'Tile',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const repeats = intList(requireTensor(ctx, 1));
    if (repeats.length !== x.dims.length || repeats.some((r) => r < 0))
      throw kernelError(ctx, `repeats [${repeats.join(',')}] do not fit rank ${x.dims.length}`);
    const strides = rowMajorStrides(x.dims);
    const outDims = x.dims.map((d, i) => d * (repeats[i] as number));
    const tables = outDims.map((d, i) => {
      const inDim = x.dims[i] as number;
      const table = new Float64Array(d);
      for (let j = 0; j < d; j++) table[j] = (j % inDim) * (strides[i] as number);
      return table;
    });
    const y = ctx.output(0, outDims, x.type);
    copyByAxisTables(x.data, y.data, outDims, tables);
  },
});
export const expandTileKernels = [expandKernel, tileKernel];
