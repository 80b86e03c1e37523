// LabelEncoder (ai.onnx.ml v4): maps each element through a key → value table, else a default.
import { type AttrReader, type DataType, type HostTensor, InferenceError, readNumber } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';
import { ML_DOMAIN } from './ml-domain.js';

export type Scalar = number | string;

export interface Table {
  readonly keys: readonly Scalar[];
  readonly values: readonly Scalar[];
  readonly valueType: DataType;
  readonly fallback: Scalar;
}

export function tensorScalars(t: HostTensor): Scalar[] {
  if (t.type === 'string') return [...(t.data as string[])];
  return Array.from({ length: t.data.length }, (_, i) => readNumber(t, i));
}

function listAttr(attrs: AttrReader, suffix: 'keys' | 'values'): { list: Scalar[]; type: DataType } | undefined {
  const tensor = attrs.tensor(`${suffix}_tensor`);
  if (tensor) return { list: tensorScalars(tensor), type: tensor.type };
  if (attrs.has(`${suffix}_strings`)) return { list: [...attrs.strings(`${suffix}_strings`)], type: 'string' };
  if (attrs.has(`${suffix}_int64s`)) return { list: [...attrs.ints(`${suffix}_int64s`)], type: 'int64' };
  if (attrs.has(`${suffix}_floats`)) return { list: [...attrs.floats(`${suffix}_floats`)], type: 'float32' };
  return undefined;
}

export function labelTable(attrs: AttrReader, where: string): Table {
  const keys = listAttr(attrs, 'keys');
  const values = listAttr(attrs, 'values');
  if (!keys || !values) throw new InferenceError(`${where}: keys_* and values_* attributes are required`);
  if (keys.list.length !== values.list.length)
    throw new InferenceError(`${where}: ${keys.list.length} keys but ${values.list.length} values`);
  const defaultTensor = attrs.tensor('default_tensor');
  let fallback: Scalar;
  if (defaultTensor && defaultTensor.data.length > 0) fallback = tensorScalars(defaultTensor)[0] as Scalar;
  else if (values.type === 'string') fallback = attrs.string('default_string', '_Unused');
  else if (values.type === 'float32' || values.type === 'float64' || values.type === 'float16') fallback = attrs.float('default_float', -0);
  else fallback = attrs.int('default_int64', -1);
  return { keys: keys.list, values: values.list, valueType: values.type, fallback };
}

export const labelEncoderOp = defineOp({
  type: 'LabelEncoder',
  domain: ML_DOMAIN,
  sinceVersion: 4,
  inputs: [param.required('X', 'T1')],
  outputs: [param.required('Y', 'T2')],
  attributes: [
    { name: 'keys_tensor', kind: 'tensor' },
    { name: 'keys_strings', kind: 'strings' },
    { name: 'keys_int64s', kind: 'ints' },
    { name: 'keys_floats', kind: 'floats' },
    { name: 'values_tensor', kind: 'tensor' },
    { name: 'values_strings', kind: 'strings' },
    { name: 'values_int64s', kind: 'ints' },
    { name: 'values_floats', kind: 'floats' },
    { name: 'default_tensor', kind: 'tensor' },
    { name: 'default_string', kind: 'string', default: { kind: 'string', value: '_Unused' } },
    { name: 'default_int64', kind: 'int', default: { kind: 'int', value: -1 } },
    { name: 'default_float', kind: 'float', default: { kind: 'float', value: -0 } },
  ],
  typeConstraints: [
    { name: 'T1', allowed: ['string', 'int64', 'int32', 'int16', 'float32', 'float64'] },
    { name: 'T2', allowed: ['string', 'int64', 'int32', 'int16', 'float32', 'float64'] },
  ],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    ctx.setOutput(0, { dtype: labelTable(ctx.attrs, whereOf(ctx)).valueType, shape: x.shape });
  },
});

export const labelEncoderOps = [labelEncoderOp];
