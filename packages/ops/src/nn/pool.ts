/** AveragePool, MaxPool (with Indices), LpPool and the Global* pools over any spatial rank. */
import { type InferenceContextV1, type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { readWindowAttrs, windowOutputDims } from '../common/nn-conv-geometry.js';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';
import { checkWindowAttrs } from './window-attrs-check.js';

function inferPool(ctx: InferenceContextV1): void {
  checkWindowAttrs(ctx);
  const x = inputInfo(ctx, 0);
  if (isUnknownRank(x.shape)) {
    ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
    if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: 'int64', shape: x.shape });
    return;
  }
  if (x.shape.length < 3) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: X must have rank >= 3`);
  const kernel = ctx.attrs.ints('kernel_shape', []);
  if (kernel.length !== x.shape.length - 2)
    throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: kernel_shape must have ${x.shape.length - 2} values`);
  const spatial = windowOutputDims(readWindowAttrs(ctx.attrs, kernel), x.shape.slice(2));
  const shape: Shape = [x.shape[0] as Shape[number], x.shape[1] as Shape[number], ...spatial];
  ctx.setOutput(0, { dtype: x.dtype, shape });
  if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: 'int64', shape });
}

const windowAttributes = [
  { name: 'auto_pad', kind: 'string', default: { kind: 'string', value: 'NOTSET' } },
  { name: 'ceil_mode', kind: 'int', default: { kind: 'int', value: 0 } },
  { name: 'dilations', kind: 'ints' },
  { name: 'kernel_shape', kind: 'ints', required: true },
  { name: 'pads', kind: 'ints' },
  { name: 'strides', kind: 'ints' },
] as const;

const floatT = [{ name: 'T', allowed: NN_FLOAT_TYPES }];

function inferGlobal(ctx: InferenceContextV1): void {
  const x = inputInfo(ctx, 0);
  if (isUnknownRank(x.shape)) ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
  else ctx.setOutput(0, { dtype: x.dtype, shape: x.shape.map((d, i) => (i < 2 ? d : 1)) });
}

const globalOp = (type: string, extra: OpDefinitionV1['attributes'] = []) =>
  defineOp({
    type,
    sinceVersion: 22,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: extra,
    typeConstraints: floatT,
    infer: inferGlobal,
  });

export const poolOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'AveragePool',
    sinceVersion: 22,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: [...windowAttributes, { name: 'count_include_pad', kind: 'int', default: { kind: 'int', value: 0 } }],
    typeConstraints: floatT,
    infer: inferPool,
  }),
  defineOp({
    type: 'MaxPool',
    sinceVersion: 22,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T'), param.optional('Indices', 'I')],
    attributes: [...windowAttributes, { name: 'storage_order', kind: 'int', default: { kind: 'int', value: 0 } }],
    typeConstraints: [
      { name: 'T', allowed: [...NN_FLOAT_TYPES, 'int8', 'uint8'] },
      { name: 'I', allowed: ['int64'] },
    ],
    infer: inferPool,
  }),
  defineOp({
    type: 'LpPool',
    sinceVersion: 22,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: [...windowAttributes, { name: 'p', kind: 'int', default: { kind: 'int', value: 2 } }],
    typeConstraints: floatT,
    infer: inferPool,
  }),
  globalOp('GlobalAveragePool'),
  globalOp('GlobalMaxPool'),
  globalOp('GlobalLpPool', [{ name: 'p', kind: 'int', default: { kind: 'int', value: 2 } }]),
];
