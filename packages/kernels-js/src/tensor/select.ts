// Data-dependent selections: Compress (keep slices where a condition holds) and NonZero.
import { copyBlock, product } from '../common/tensor-copy.js';
import { kernelAxis, requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';

export const compressKernel = defineKernel({
  opType: 'Compress',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const condition = requireTensor(ctx, 1).data as Uint8Array;
    const flat = !ctx.attrs.has('axis');
    const dims = flat ? [x.data.length] : x.dims;
    const axis = flat ? 0 : kernelAxis(ctx, ctx.attrs.int('axis'), x.dims.length);
    const axisDim = dims[axis] as number;
    const keep: number[] = [];
    for (let i = 0; i < Math.min(axisDim, condition.length); i++) if (condition[i]) keep.push(i);
    const outer = product(dims, 0, axis);
    const inner = product(dims, axis + 1);
    const outDims = [...dims];
    outDims[axis] = keep.length;
    const y = ctx.output(0, outDims, x.type);
    let o = 0;
    for (let outerIndex = 0; outerIndex < outer; outerIndex++) {
      for (const i of keep) {
        copyBlock(x.data, (outerIndex * axisDim + i) * inner, y.data, o, inner);
        o += inner;
      }
    }
  },
});

export const nonZeroKernel = defineKernel({
  opType: 'NonZero',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    // a scalar counts as a 1-element vector, as numpy and onnxruntime do
    const dims = x.dims.length === 0 ? [1] : x.dims;
    const rank = dims.length;
    const data = x.data as unknown as ArrayLike<unknown>;
    const hits: number[] = [];
    const isFloat16 = x.type === 'float16' || x.type === 'bfloat16';
    for (let i = 0; i < data.length; i++) {
      const v = data[i];
      // +0/-0 in half precision are 0x0000/0x8000
      if (isFloat16 ? ((v as number) & 0x7fff) !== 0 : v !== 0 && v !== 0n && v !== '' && v !== false) hits.push(i);
    }
    const y = ctx.output(0, [rank, hits.length], 'int64');
    const out = y.data as BigInt64Array;
    const strides = new Array<number>(rank);
    let s = 1;
    for (let d = rank - 1; d >= 0; d--) {
      strides[d] = s;
      s *= dims[d] as number;
    }
    hits.forEach((flat, k) => {
      let rest = flat;
      for (let d = 0; d < rank; d++) {
        const c = Math.floor(rest / (strides[d] as number));
        rest -= c * (strides[d] as number);
        out[d * hits.length + k] = BigInt(c);
      }
    });
  },
});
export const selectKernels = [compressKernel, nonZeroKernel];
