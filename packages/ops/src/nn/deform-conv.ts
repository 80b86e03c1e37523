/**
 * DeformConv (2-D): each kernel tap samples X bilinearly at its offset position (zero outside),
 * optionally scaled by a mask, then the sampled columns go through the same GEMM as Conv.
 */
import { type OpDefinitionV1, type Shape, isUnknownRank } from '@tsge/metadef';
import { readWindowAttrs, windowOutputDims } from '../common/nn-conv-geometry.js';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';
import { checkWindowAttrs } from './window-attrs-check.js';

export const deformConvOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'DeformConv',
    sinceVersion: 22,
    inputs: [
      param.required('X', 'T'),
      param.required('W', 'T'),
      param.required('offset', 'T'),
      param.optional('B', 'T'),
      param.optional('mask', 'T'),
    ],
    outputs: [param.required('Y', 'T')],
    attributes: [
      { name: 'dilations', kind: 'ints' },
      { name: 'group', kind: 'int', default: { kind: 'int', value: 1 } },
      { name: 'kernel_shape', kind: 'ints' },
      { name: 'offset_group', kind: 'int', default: { kind: 'int', value: 1 } },
      { name: 'pads', kind: 'ints' },
      { name: 'strides', kind: 'ints' },
    ],
    typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
    infer(ctx) {
      checkWindowAttrs(ctx);
      const x = inputInfo(ctx, 0);
      const w = inputInfo(ctx, 1);
      if (isUnknownRank(x.shape) || isUnknownRank(w.shape)) {
        ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
        return;
      }
      const kernel = ctx.attrs.has('kernel_shape') ? ctx.attrs.ints('kernel_shape') : w.shape.slice(2);
      const spatial = kernel.every((k) => typeof k === 'number' && k >= 0)
        ? windowOutputDims(readWindowAttrs(ctx.attrs, kernel as number[]), x.shape.slice(2))
        : x.shape.slice(2).map(() => -1);
      ctx.setOutput(0, { dtype: x.dtype, shape: [x.shape[0] as Shape[number], w.shape[0] as Shape[number], ...spatial] });
    },
  }),
];
