// DepthToSpace and SpaceToDepth: a 6-D reshape-transpose-reshape, done as one permuted copy.
import { type Dim, ALL_TENSOR_TYPES, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

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

export const depthSpaceOps = [depthToSpaceOp, spaceToDepthOp];
