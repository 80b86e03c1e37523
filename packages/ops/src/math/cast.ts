/** Cast, CastLike and BitCast: conversions between every tensor dtype. */
import {
  type AttrReader,
  type DataType,
  type OpDefinitionV1,
  InferenceError,
  dataTypeFromOnnx,
  isDataType,
  storageConstructor,
} from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { CASTABLE } from './op-types.js';

/** Cast-1 named its target with TensorProto.DataType names. */
const ONNX_TYPE_NAMES: Readonly<Record<string, DataType>> = {
  FLOAT: 'float32',
  UINT8: 'uint8',
  INT8: 'int8',
  UINT16: 'uint16',
  INT16: 'int16',
  INT32: 'int32',
  INT64: 'int64',
  STRING: 'string',
  BOOL: 'bool',
  FLOAT16: 'float16',
  DOUBLE: 'float64',
  UINT32: 'uint32',
  UINT64: 'uint64',
  BFLOAT16: 'bfloat16',
};

/** The `to` attribute as a dtype: a dtype attribute or an ONNX TensorProto.DataType number. */
export function readTargetType(attrs: AttrReader, name = 'to'): DataType | undefined {
  const a = attrs.get(name);
  if (!a) return undefined;
  if (a.kind === 'dtype') return a.value;
  if (a.kind === 'int') return dataTypeFromOnnx(a.value);
  if (a.kind === 'string') return isDataType(a.value) ? a.value : ONNX_TYPE_NAMES[a.value.toUpperCase()];
  return undefined;
}

function inferCast(ctx: Parameters<OpDefinitionV1['infer']>[0], to: DataType | undefined): void {
  const x = requireInput(ctx, 0);
  if (!to) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: the target type is missing or unknown`);
  ctx.setOutput(0, { dtype: to, shape: x.shape });
}

const CAST_ATTRS = [
  { name: 'saturate', kind: 'int', default: { kind: 'int', value: 1 } },
  { name: 'round_mode', kind: 'string', default: { kind: 'string', value: 'up' } },
] as const;

export const castOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Cast',
    sinceVersion: 25,
    inputs: [param.required('input', 'T1')],
    outputs: [param.required('output', 'T2')],
    attributes: [{ name: 'to', kind: 'int', required: true }, ...CAST_ATTRS],
    typeConstraints: [
      { name: 'T1', allowed: CASTABLE },
      { name: 'T2', allowed: CASTABLE },
    ],
    infer: (ctx) => inferCast(ctx, readTargetType(ctx.attrs)),
  }),
  defineOp({
    type: 'CastLike',
    sinceVersion: 25,
    inputs: [param.required('input', 'T1'), param.required('target_type', 'T2')],
    outputs: [param.required('output', 'T2')],
    attributes: [...CAST_ATTRS],
    typeConstraints: [
      { name: 'T1', allowed: CASTABLE },
      { name: 'T2', allowed: CASTABLE },
    ],
    infer: (ctx) => inferCast(ctx, requireInput(ctx, 1).dtype),
  }),
  defineOp({
    type: 'BitCast',
    sinceVersion: 26,
    inputs: [param.required('input', 'T1')],
    outputs: [param.required('output', 'T2')],
    attributes: [{ name: 'to', kind: 'int', required: true }],
    typeConstraints: [
      { name: 'T1', allowed: CASTABLE },
      { name: 'T2', allowed: CASTABLE },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      const to = readTargetType(ctx.attrs);
      if (!to) throw new InferenceError(`BitCast ${ctx.nodeName}: the target type is missing or unknown`);
      const a = storageConstructor(x.dtype)?.BYTES_PER_ELEMENT;
      const b = storageConstructor(to)?.BYTES_PER_ELEMENT;
      if (!a || !b || a !== b) throw new InferenceError(`BitCast ${ctx.nodeName}: ${x.dtype} and ${to} differ in size`);
      ctx.setOutput(0, { dtype: to, shape: x.shape });
    },
  }),
];
