// ArrayFeatureExtractor and Binarizer (ai.onnx.ml).
import { numberToBfloat16, numberToFloat16, readNumber } from '@tsge/metadef';
import { indexValues, kernelError, requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';
import { ML_DOMAIN } from '@tsge/ops/kernel-support';

export const arrayFeatureExtractorKernel = defineKernel({
  opType: 'ArrayFeatureExtractor',
  domain: ML_DOMAIN,
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const indices = indexValues(requireTensor(ctx, 1));
    const last = x.dims.length === 0 ? 1 : (x.dims[x.dims.length - 1] as number);
    const rows = last === 0 ? 0 : x.data.length / last;
    for (const i of indices) if (i < 0 || i >= last) throw kernelError(ctx, `index ${i} is out of range for ${last} features`);
    const outDims = x.dims.length <= 1 ? [1, indices.length] : [...x.dims.slice(0, -1), indices.length];
    const y = ctx.output(0, outDims, x.type);
    const src = x.data as unknown as ArrayLike<unknown>;
    const dst = y.data as unknown as { [i: number]: unknown };
    let o = 0;
    for (let r = 0; r < rows; r++) for (let k = 0; k < indices.length; k++) dst[o++] = src[r * last + (indices[k] as number)];
  },
});

export const binarizerKernel = defineKernel({
  opType: 'Binarizer',
  domain: ML_DOMAIN,
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const threshold = ctx.attrs.float('threshold', 0);
    const y = ctx.output(0, x.dims, x.type);
    const n = x.data.length;
    if (x.type === 'int64' || x.type === 'uint64') {
      const src = x.data as BigInt64Array;
      const dst = y.data as BigInt64Array;
      for (let i = 0; i < n; i++) dst[i] = Number(src[i]) > threshold ? 1n : 0n;
    } else if (x.type === 'float16' || x.type === 'bfloat16') {
      const one = x.type === 'float16' ? numberToFloat16(1) : numberToBfloat16(1);
      const dst = y.data as Uint16Array;
      for (let i = 0; i < n; i++) dst[i] = readNumber(x, i) > threshold ? one : 0;
    } else {
      const src = x.data as Float64Array;
      const dst = y.data as Float64Array;
      for (let i = 0; i < n; i++) dst[i] = (src[i] as number) > threshold ? 1 : 0;
    }
  },
});
export const featureKernels = [arrayFeatureExtractorKernel, binarizerKernel];
