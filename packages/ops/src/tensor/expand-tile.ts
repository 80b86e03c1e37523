// Expand (bidirectional broadcast to a shape) and Tile (repeat along each axis).
import type { Dim } from '@tsge/metadef';
import { ALL_TENSOR_TYPES, InferenceError, broadcastShapes, isUnknownRank } from '@tsge/metadef';
import { broadcastDims } from '../common/broadcast.js';
import { requireInput } from '../common/infer-helpers.js';
import { copyByAxisTables, linearTable, rowMajorStrides } from '../common/tensor-copy.js';
import { intList, kernelError, knownInts, requireTensor, unknownDims, whereOf } from '../common/tensor-infer.js';
import { defineKernel, defineOp, param } from '../define.js';

export const expandOp = defineOp({
  type: 'Expand',
  sinceVersion: 13,
  inputs: [param.required('input', 'T'), param.required('shape', 'int64')],
  outputs: [param.required('output', 'T')],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const target = knownInts(ctx, 1);
    if (!target) {
      const n = requireInput(ctx, 1).shape[0];
      const rank = !isUnknownRank(x.shape) && typeof n === 'number' && n >= 0 ? Math.max(n, x.shape.length) : undefined;
      ctx.setOutput(0, { dtype: x.dtype, shape: rank === undefined ? [-2] : unknownDims(rank) });
      return;
    }
    const shape = broadcastShapes(x.shape, target);
    if (!shape) throw new InferenceError(`${whereOf(ctx)}: cannot expand to [${target.join(',')}]`);
    ctx.setOutput(0, { dtype: x.dtype, shape });
  },
});

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

export const tileOp = defineOp({
  type: 'Tile',
  sinceVersion: 13,
  inputs: [param.required('input', 'T'), param.required('repeats', 'int64')],
  outputs: [param.required('output', 'T')],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
      return;
    }
    const repeats = knownInts(ctx, 1);
    if (repeats && repeats.length !== x.shape.length)
      throw new InferenceError(`${whereOf(ctx)}: repeats has ${repeats.length} entries for rank ${x.shape.length}`);
    const shape = x.shape.map((d, i): Dim => {
      const r = repeats?.[i];
      return r !== undefined && typeof d === 'number' && d >= 0 ? d * r : -1;
    });
    ctx.setOutput(0, { dtype: x.dtype, shape });
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

export const expandTileOps = [expandOp, tileOp];
export const expandTileKernels = [expandKernel, tileKernel];
