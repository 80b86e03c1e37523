// Data-dependent selections: Compress (keep slices where a condition holds) and NonZero.
import { ALL_TENSOR_TYPES, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { copyBlock, product } from '../common/tensor-copy.js';
import { kernelAxis, normalizeAxis, requireTensor, whereOf } from '../common/tensor-infer.js';
import { defineKernel, defineOp, param } from '../define.js';

export const compressOp = defineOp({
  type: 'Compress',
  sinceVersion: 11,
  inputs: [param.required('input', 'T'), param.required('condition', 'bool')],
  outputs: [param.required('output', 'T')],
  attributes: [{ name: 'axis', kind: 'int' }],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const count = ctx.newSymbol('compress');
    if (!ctx.attrs.has('axis')) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [count] });
      return;
    }
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
      return;
    }
    const axis = normalizeAxis(ctx.attrs.int('axis'), x.shape.length, whereOf(ctx));
    const shape = [...x.shape];
    shape[axis] = count;
    ctx.setOutput(0, { dtype: x.dtype, shape });
  },
});

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

export const nonZeroOp = defineOp({
  type: 'NonZero',
  sinceVersion: 13,
  inputs: [param.required('X', 'T')],
  outputs: [param.required('Y', 'int64')],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const rank = isUnknownRank(x.shape) ? -1 : Math.max(1, x.shape.length);
    ctx.setOutput(0, { dtype: 'int64', shape: [rank, ctx.newSymbol('nonzero')] });
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

export const selectOps = [compressOp, nonZeroOp];
export const selectKernels = [compressKernel, nonZeroKernel];
