// OneHot: depth-wide one-hot rows inserted at `axis`; negative indices count from depth.
import { readNumber } from '@tsge/metadef';
import { fillSlots, rawElement } from '../common/tensor-copy.js';
import { indexValues, kernelError, requireTensor } from '../common/tensor-infer.js';
import { normalizeAxisInclusive, whereOf } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';

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
export const oneHotKernels = [oneHotKernel];
