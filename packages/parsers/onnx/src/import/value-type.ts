import {
  type DataType,
  type Dim,
  type Shape,
  type TensorDesc,
  UNKNOWN_RANK_SHAPE,
  createTensorDesc,
  dataTypeFromOnnx,
} from '@tsge/metadef';
import { int64ToNumber } from '../internal/int64.js';
import type { ITypeProto } from '../internal/proto.js';

/** What an ONNX TypeProto says about a value, reduced to what a TensorDesc can carry. */
export interface ValueType {
  readonly kind: 'tensor' | 'sequence' | 'optional' | 'map' | 'unknown';
  readonly dtype: DataType | undefined;
  readonly shape: Shape;
}

const MAX_NESTING = 16;

/** Reads a TypeProto: tensors keep dims (numbers, symbols from dim_param, -1 when neither). */
export function readValueType(type: ITypeProto | null | undefined, depth = 0): ValueType {
  if (!type || depth > MAX_NESTING) return { kind: 'unknown', dtype: undefined, shape: UNKNOWN_RANK_SHAPE };
  const tensor = type.tensorType ?? type.sparseTensorType;
  if (tensor) {
    const shape: Dim[] | undefined = tensor.shape
      ? (tensor.shape.dim ?? []).map((d): Dim => {
          if (d.dimParam) return d.dimParam;
          if (d.dimValue !== null && d.dimValue !== undefined) {
            const v = int64ToNumber(d.dimValue);
            return v >= 0 ? v : -1;
          }
          return -1;
        })
      : undefined;
    return { kind: 'tensor', dtype: dataTypeFromOnnx(tensor.elemType ?? 0), shape: shape ?? UNKNOWN_RANK_SHAPE };
  }
  if (type.sequenceType) {
    const inner = readValueType(type.sequenceType.elemType, depth + 1);
    return { kind: 'sequence', dtype: inner.dtype, shape: inner.shape };
  }
  if (type.optionalType) {
    const inner = readValueType(type.optionalType.elemType, depth + 1);
    return { kind: 'optional', dtype: inner.dtype, shape: inner.shape };
  }
  if (type.mapType) return { kind: 'map', dtype: dataTypeFromOnnx(type.mapType.keyType ?? 0), shape: UNKNOWN_RANK_SHAPE };
  return { kind: 'unknown', dtype: undefined, shape: UNKNOWN_RANK_SHAPE };
}

/** A TensorDesc for a value; unknown dtypes default to float32 with unknown rank until inference runs. */
export function descOfType(type: ValueType): TensorDesc {
  const desc = createTensorDesc(type.dtype ?? 'float32', type.shape);
  if (type.kind === 'sequence' || type.kind === 'optional') desc.valueKind = type.kind;
  return desc;
}

export function unknownDesc(): TensorDesc {
  return createTensorDesc('float32', UNKNOWN_RANK_SHAPE);
}
