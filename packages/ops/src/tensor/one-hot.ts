// OneHot: depth-wide one-hot rows inserted at `axis`; negative indices count from depth.
import type { Dim } from '@tsge/metadef';
import { ALL_TENSOR_TYPES, NUMERIC_TYPES, isUnknownRank, readNumber } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { fillSlots, rawElement } from '../common/tensor-copy.js';
import { indexValues, kernelError, normalizeAxisInclusive, requireTensor, whereOf } from '../common/tensor-infer.js';
import { defineKernel, defineOp, param } from '../define.js';

export const oneHotOp = defineOp({
  type: 'OneHot',
  sinceVersion: 11,
  inputs: [param.required('indices', 'T1'), param.required('depth', 'T2'), param.required('values', 'T3')],
  outputs: [param.required('output', 'T3')],
  attributes: [{ name: 'axis', kind: 'int', default: { kind: 'int', value: -1 } }],
  typeConstraints: [
    { name: 'T1', allowed: NUMERIC_TYPES },
    { name: 'T2', allowed: NUMERIC_TYPES },
    { name: 'T3', allowed: ALL_TENSOR_TYPES },
  ],
  infer(ctx) {
    const indices = requireInput(ctx, 0);
    const values = requireInput(ctx, 2);
    if (isUnknownRank(indices.shape)) {
      ctx.setOutput(0, { dtype: values.dtype, shape: [-2] });
      return;
    }
    const axis = normalizeAxisInclusive(ctx.attrs.int('axis', -1), indices.shape.length, whereOf(ctx));
    const depthT = ctx.inputValue(1);
    const depth: Dim = depthT ? Math.trunc(readNumber(depthT, 0)) : -1;
    const shape: Dim[] = [...indices.shape];
    shape.splice(axis, 0, depth);
    ctx.setOutput(0, { dtype: values.dtype, shape });
  },
});

export const oneHotKernel = defineKernel({
  opType: 'OneHot',
  compute(ctx) {
    const indicesT = requireTensor(ctx, 0);
    const depthT = requireTensor(ctx, 1);
    const values = requireTensor(ctx, 2);
    if (depthT.data.length !== 1 || values.data.length !== 2) throw kernelError(ctx, 'depth must have one element and values two');
    const depth = Math.trunc(readNumber(depthT, 0));
    if (!(depth >= 1)) throw kernelError(ctx, `depth ${depth} must be at least 1`);
    const rank = indicesT.dims.length;
    const axis = normalizeAxisInclusive(ctx.attrs.int('axis', -1), rank, whereOf(ctx));
    const outDims = [...indicesT.dims];
    outDims.splice(axis, 0, depth);
    const y = ctx.output(0, outDims, values.type);
    fillSlots(y.data, rawElement(values, 0));
    const on = rawElement(values, 1);
    const indices = indexValues(indicesT);
    if (indicesT.type === 'float32' || indicesT.type === 'float64' || indicesT.type === 'float16' || indicesT.type === 'bfloat16') {
      for (let k = 0; k < indices.length; k++) indices[k] = Math.trunc(readNumber(indicesT, k));
    }
    let inner = 1;
    for (let d = axis; d < rank; d++) inner *= indicesT.dims[d] as number;
    const dst = y.data as unknown as { [i: number]: unknown };
    for (let k = 0; k < indices.length; k++) {
      let i = indices[k] as number;
      if (i < 0) i += depth;
      if (i < 0 || i >= depth) continue;
      const outerIndex = Math.floor(k / inner);
      const innerIndex = k - outerIndex * inner;
      dst[(outerIndex * depth + i) * inner + innerIndex] = on;
    }
  },
});

export const oneHotOps = [oneHotOp];
export const oneHotKernels = [oneHotKernel];
