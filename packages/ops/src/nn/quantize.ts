/**
 * QuantizeLinear / DequantizeLinear (per-tensor, per-axis and blocked; integer, 4-bit and float8
 * kinds), DynamicQuantizeLinear and QLinearMatMul.
 */
import {
  type DataType,
  type InferenceContextV1,
  type KernelContextV1,
  type OpDefinitionV1,
  type Shape,
  InferenceError,
  dataTypeFromOnnx,
  isUnknownRank,
} from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

const QUANT_TYPES: readonly DataType[] = [
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'int4',
  'uint4',
  'float8e4m3fn',
  'float8e4m3fnuz',
  'float8e5m2',
  'float8e5m2fnuz',
  'float4e2m1',
];
const SCALE_TYPES: readonly DataType[] = ['float32', 'float16', 'bfloat16', 'float64'];

export function quantizedOutputType(ctx: { attrs: KernelContextV1['attrs'] }, zeroPointType: DataType | undefined): DataType {
  if (zeroPointType) return zeroPointType;
  const code = ctx.attrs.int('output_dtype', 0);
  return (code ? dataTypeFromOnnx(code) : undefined) ?? 'uint8';
}

function inferQuantize(ctx: InferenceContextV1): void {
  const x = inputInfo(ctx, 0);
  ctx.setOutput(0, { dtype: quantizedOutputType(ctx, ctx.input(2)?.dtype), shape: x.shape });
}

function inferQLinearMatMul(ctx: InferenceContextV1): void {
  const a = inputInfo(ctx, 0);
  const b = inputInfo(ctx, 3);
  const dtype = ctx.input(7)?.dtype ?? a.dtype;
  if (isUnknownRank(a.shape) || isUnknownRank(b.shape)) {
    ctx.setOutput(0, { dtype, shape: [-2] });
    return;
  }
  if (a.shape.length === 0 || b.shape.length === 0) throw new InferenceError(`QLinearMatMul ${ctx.nodeName}: inputs must not be scalars`);
  const aBatch = a.shape.length > 2 ? a.shape.slice(0, -2) : [];
  const bBatch = b.shape.length > 2 ? b.shape.slice(0, -2) : [];
  const rank = Math.max(aBatch.length, bBatch.length);
  const batch: Shape[number][] = [];
  for (let i = 0; i < rank; i++) {
    const da = aBatch[aBatch.length - rank + i] ?? 1;
    const db = bBatch[bBatch.length - rank + i] ?? 1;
    batch.push(da === 1 ? db : da);
  }
  const shape: Shape = [
    ...batch,
    ...(a.shape.length > 1 ? [a.shape[a.shape.length - 2] as Shape[number]] : []),
    ...(b.shape.length > 1 ? [b.shape[b.shape.length - 1] as Shape[number]] : []),
  ];
  ctx.setOutput(0, { dtype, shape });
}

const quantAttributes = [
  { name: 'axis', kind: 'int', default: { kind: 'int', value: 1 } },
  { name: 'block_size', kind: 'int', default: { kind: 'int', value: 0 } },
  { name: 'output_dtype', kind: 'int', default: { kind: 'int', value: 0 } },
] as const;

export const quantizeOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'QuantizeLinear',
    sinceVersion: 24,
    inputs: [param.required('x', 'T1'), param.required('y_scale', 'T2'), param.optional('y_zero_point', 'T3')],
    outputs: [param.required('y', 'T3')],
    attributes: [
      ...quantAttributes,
      { name: 'saturate', kind: 'int', default: { kind: 'int', value: 1 } },
      { name: 'precision', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: ['float32', 'float16', 'bfloat16', 'int32', 'float64'] },
      { name: 'T2', allowed: [...SCALE_TYPES, 'int32'] },
      { name: 'T3', allowed: QUANT_TYPES },
    ],
    infer: inferQuantize,
  }),
  defineOp({
    type: 'DequantizeLinear',
    sinceVersion: 24,
    inputs: [param.required('x', 'T1'), param.required('x_scale', 'T2'), param.optional('x_zero_point', 'T1')],
    outputs: [param.required('y', 'T3')],
    attributes: quantAttributes,
    typeConstraints: [
      { name: 'T1', allowed: QUANT_TYPES },
      { name: 'T2', allowed: SCALE_TYPES },
      { name: 'T3', allowed: SCALE_TYPES },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const code = ctx.attrs.int('output_dtype', 0);
      const dtype = (code ? dataTypeFromOnnx(code) : undefined) ?? ctx.input(1)?.dtype ?? 'float32';
      ctx.setOutput(0, { dtype, shape: x.shape });
    },
  }),
  defineOp({
    type: 'DynamicQuantizeLinear',
    sinceVersion: 11,
    inputs: [param.required('x', 'T1')],
    outputs: [param.required('y', 'T2'), param.required('y_scale', 'float32'), param.required('y_zero_point', 'T2')],
    typeConstraints: [
      { name: 'T1', allowed: ['float32'] },
      { name: 'T2', allowed: ['uint8'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      ctx.setOutput(0, { dtype: 'uint8', shape: x.shape });
      ctx.setOutput(1, { dtype: 'float32', shape: [] });
      ctx.setOutput(2, { dtype: 'uint8', shape: [] });
    },
  }),
  defineOp({
    type: 'QLinearMatMul',
    sinceVersion: 21,
    inputs: [
      param.required('a', 'T1'),
      param.required('a_scale', 'TS'),
      param.required('a_zero_point', 'T1'),
      param.required('b', 'T2'),
      param.required('b_scale', 'TS'),
      param.required('b_zero_point', 'T2'),
      param.required('y_scale', 'TS'),
      param.required('y_zero_point', 'T3'),
    ],
    outputs: [param.required('y', 'T3')],
    typeConstraints: [
      { name: 'TS', allowed: ['float32', 'float16', 'bfloat16'] },
      { name: 'T1', allowed: ['int8', 'uint8', 'float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz'] },
      { name: 'T2', allowed: ['int8', 'uint8', 'float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz'] },
      { name: 'T3', allowed: ['int8', 'uint8', 'float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz'] },
    ],
    infer: inferQLinearMatMul,
  }),
];
