/** Conv, ConvInteger and QLinearConv: im2col through a gather table, then a blocked GEMM per group. */
import { type HostTensor, type InferenceContextV1, type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { readWindowAttrs, windowOutputDims } from '../common/nn-conv-geometry.js';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';
import { checkWindowAttrs } from './window-attrs-check.js';

export function inferConv(ctx: InferenceContextV1, dtypeOverride?: HostTensor['type']): void {
  checkWindowAttrs(ctx);
  const x = inputInfo(ctx, 0);
  const w = inputInfo(ctx, ctx.opType === 'QLinearConv' ? 3 : 1);
  const dtype = dtypeOverride ?? x.dtype;
  if (isUnknownRank(x.shape)) {
    ctx.setOutput(0, { dtype, shape: x.shape });
    return;
  }
  if (x.shape.length < 3) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: X must have rank >= 3`);
  const spatial = x.shape.length - 2;
  const wKernel = isUnknownRank(w.shape) ? [] : w.shape.slice(2);
  const kernel = ctx.attrs.has('kernel_shape') ? ctx.attrs.ints('kernel_shape') : wKernel;
  const outChannels = isUnknownRank(w.shape) ? -1 : (w.shape[0] as Shape[number]);
  let spatialOut: Shape;
  if (kernel.length === spatial && kernel.every((k) => typeof k === 'number' && k >= 0)) {
    spatialOut = windowOutputDims({ ...readWindowAttrs(ctx.attrs, kernel as number[]), ceilMode: false }, x.shape.slice(2));
  } else spatialOut = new Array(spatial).fill(-1);
  ctx.setOutput(0, { dtype, shape: [x.shape[0] as Shape[number], outChannels, ...spatialOut] });
}

export const windowAttributes = [
  { name: 'auto_pad', kind: 'string', default: { kind: 'string', value: 'NOTSET' } },
  { name: 'dilations', kind: 'ints' },
  { name: 'group', kind: 'int', default: { kind: 'int', value: 1 } },
  { name: 'kernel_shape', kind: 'ints' },
  { name: 'pads', kind: 'ints' },
  { name: 'strides', kind: 'ints' },
] as const;

export const convOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Conv',
    sinceVersion: 22,
    inputs: [param.required('X', 'T'), param.required('W', 'T'), param.optional('B', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: windowAttributes,
    typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
    infer: (ctx) => inferConv(ctx),
  }),
  defineOp({
    type: 'ConvInteger',
    sinceVersion: 10,
    inputs: [
      param.required('x', 'T1'),
      param.required('w', 'T2'),
      param.optional('x_zero_point', 'T1'),
      param.optional('w_zero_point', 'T2'),
    ],
    outputs: [param.required('y', 'T3')],
    attributes: windowAttributes,
    typeConstraints: [
      { name: 'T1', allowed: ['int8', 'uint8'] },
      { name: 'T2', allowed: ['int8', 'uint8'] },
      { name: 'T3', allowed: ['int32'] },
    ],
    infer: (ctx) => inferConv(ctx, 'int32'),
  }),
  defineOp({
    type: 'QLinearConv',
    sinceVersion: 10,
    inputs: [
      param.required('x', 'T1'),
      param.required('x_scale', 'float32'),
      param.required('x_zero_point', 'T1'),
      param.required('w', 'T2'),
      param.required('w_scale', 'float32'),
      param.required('w_zero_point', 'T2'),
      param.required('y_scale', 'float32'),
      param.required('y_zero_point', 'T3'),
      param.optional('B', 'T4'),
    ],
    outputs: [param.required('y', 'T3')],
    attributes: windowAttributes,
    typeConstraints: [
      { name: 'T1', allowed: ['int8', 'uint8'] },
      { name: 'T2', allowed: ['int8', 'uint8'] },
      { name: 'T3', allowed: ['int8', 'uint8'] },
      { name: 'T4', allowed: ['int32'] },
    ],
    infer: (ctx) => inferConv(ctx, ctx.input(7)?.dtype ?? ctx.input(0)?.dtype),
  }),
];
