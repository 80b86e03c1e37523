// DepthToSpace and SpaceToDepth: a 6-D reshape-transpose-reshape, done as one permuted copy.
import type { Dim } from '@tsge/metadef';
import { ALL_TENSOR_TYPES, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { transposeInto } from '../common/tensor-copy.js';
import { kernelError, requireTensor, whereOf } from '../common/tensor-infer.js';
import { defineKernel, defineOp, param } from '../define.js';

const known = (d: Dim | undefined): d is number => typeof d === 'number' && d >= 0;

export const depthToSpaceOp = defineOp({
  type: 'DepthToSpace',
  sinceVersion: 13,
  inputs: [param.required('input', 'T')],
  outputs: [param.required('output', 'T')],
  attributes: [
    { name: 'blocksize', kind: 'int', required: true },
    { name: 'mode', kind: 'string', default: { kind: 'string', value: 'DCR' } },
  ],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const b = ctx.attrs.int('blocksize');
    if (b <= 0) throw new InferenceError(`${whereOf(ctx)}: blocksize must be positive`);
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-1, -1, -1, -1] });
      return;
    }
    if (x.shape.length !== 4) throw new InferenceError(`${whereOf(ctx)}: input must be 4-D`);
    const [n, c, h, w] = x.shape;
    if (known(c) && c % (b * b) !== 0) throw new InferenceError(`${whereOf(ctx)}: channels ${c} not divisible by blocksize² ${b * b}`);
    ctx.setOutput(0, {
      dtype: x.dtype,
      shape: [n as Dim, known(c) ? c / (b * b) : -1, known(h) ? h * b : -1, known(w) ? w * b : -1],
    });
  },
});

export const depthToSpaceKernel = defineKernel({
  opType: 'DepthToSpace',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const b = ctx.attrs.int('blocksize');
    if (x.dims.length !== 4 || b <= 0 || (x.dims[1] as number) % (b * b) !== 0)
      throw kernelError(ctx, `cannot rearrange [${x.dims.join(',')}] by blocksize ${b}`);
    const [n, c, h, w] = x.dims as [number, number, number, number];
    const c2 = c / (b * b);
    const crd = ctx.attrs.string('mode', 'DCR') === 'CRD';
    const y = ctx.output(0, [n, c2, h * b, w * b], x.type);
    if (crd) transposeInto(x.data, y.data, [n, c2, b, b, h, w], [0, 1, 4, 2, 5, 3]);
    else transposeInto(x.data, y.data, [n, b, b, c2, h, w], [0, 3, 4, 1, 5, 2]);
  },
});

export const spaceToDepthOp = defineOp({
  type: 'SpaceToDepth',
  sinceVersion: 13,
  inputs: [param.required('input', 'T')],
  outputs: [param.required('output', 'T')],
  attributes: [{ name: 'blocksize', kind: 'int', required: true }],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const b = ctx.attrs.int('blocksize');
    if (b <= 0) throw new InferenceError(`${whereOf(ctx)}: blocksize must be positive`);
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-1, -1, -1, -1] });
      return;
    }
    if (x.shape.length !== 4) throw new InferenceError(`${whereOf(ctx)}: input must be 4-D`);
    const [n, c, h, w] = x.shape;
    if ((known(h) && h % b !== 0) || (known(w) && w % b !== 0))
      throw new InferenceError(`${whereOf(ctx)}: spatial dims not divisible by blocksize ${b}`);
    ctx.setOutput(0, {
      dtype: x.dtype,
      shape: [n as Dim, known(c) ? c * b * b : -1, known(h) ? h / b : -1, known(w) ? w / b : -1],
    });
  },
});

export const spaceToDepthKernel = defineKernel({
  opType: 'SpaceToDepth',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const b = ctx.attrs.int('blocksize');
    if (x.dims.length !== 4 || b <= 0 || (x.dims[2] as number) % b !== 0 || (x.dims[3] as number) % b !== 0)
      throw kernelError(ctx, `cannot rearrange [${x.dims.join(',')}] by blocksize ${b}`);
    const [n, c, h, w] = x.dims as [number, number, number, number];
    const y = ctx.output(0, [n, c * b * b, h / b, w / b], x.type);
    transposeInto(x.data, y.data, [n, c, h / b, b, w / b, b], [0, 3, 5, 1, 2, 4]);
  },
});

export const depthSpaceOps = [depthToSpaceOp, spaceToDepthOp];
export const depthSpaceKernels = [depthToSpaceKernel, spaceToDepthKernel];
