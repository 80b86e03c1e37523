import type { DataType } from '@tsge/metadef';
import { TfProblem } from '../internal/problem.js';

/** TensorFlow DataType enum numbers (types.proto) → tsge dtypes; `_REF` types (+100) read as their base. */
const TF_DTYPES: Readonly<Record<number, DataType>> = {
  1: 'float32',
  2: 'float64',
  3: 'int32',
  4: 'uint8',
  5: 'int16',
  6: 'int8',
  7: 'string',
  8: 'complex64',
  9: 'int64',
  10: 'bool',
  11: 'int8', // qint8
  12: 'uint8', // quint8
  13: 'int32', // qint32
  14: 'bfloat16',
  15: 'int16', // qint16
  16: 'uint16', // quint16
  17: 'uint16',
  18: 'complex128',
  19: 'float16',
  22: 'uint32',
  23: 'uint64',
};

const TF_NAMES: Readonly<Record<string, number>> = {
  DT_FLOAT: 1,
  DT_DOUBLE: 2,
  DT_INT32: 3,
  DT_UINT8: 4,
  DT_INT16: 5,
  DT_INT8: 6,
  DT_STRING: 7,
  DT_COMPLEX64: 8,
  DT_INT64: 9,
  DT_BOOL: 10,
  DT_QINT8: 11,
  DT_QUINT8: 12,
  DT_QINT32: 13,
  DT_BFLOAT16: 14,
  DT_QINT16: 15,
  DT_QUINT16: 16,
  DT_UINT16: 17,
  DT_COMPLEX128: 18,
  DT_HALF: 19,
  DT_RESOURCE: 20,
  DT_VARIANT: 21,
  DT_UINT32: 22,
  DT_UINT64: 23,
};

/** The enum number of a TF dtype given as a number or a `DT_*` name. */
export function tfDtypeNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const base = value.endsWith('_REF') ? value.slice(0, -4) : value;
    return TF_NAMES[base] ?? 0;
  }
  return 0;
}

export function isResourceOrVariant(value: unknown): boolean {
  const n = tfDtypeNumber(value) % 100;
  return n === 20 || n === 21;
}

/** A TF dtype as a tsge dtype; unknown or unsupported types are a problem naming `where`. */
export function tfDtype(value: unknown, where: string): DataType {
  const n = tfDtypeNumber(value);
  const type = TF_DTYPES[n > 100 ? n - 100 : n];
  if (!type) throw new TfProblem('TSGE-E3105', { tensor: where, reason: `data type ${String(value)} is not supported` });
  return type;
}

/** The tsge dtype a TF dtype maps to, or undefined (DT_INVALID, resource, variant). */
export function tfDtypeOrUndefined(value: unknown): DataType | undefined {
  const n = tfDtypeNumber(value);
  return TF_DTYPES[n > 100 ? n - 100 : n];
}

/** `DT_*` name of a tsge dtype (TensorFlow.js JSON, the reference converter). */
export function tfDtypeName(type: DataType): string {
  for (const [name, n] of Object.entries(TF_NAMES)) if (TF_DTYPES[n] === type && !/Q/.test(name)) return name;
  return 'DT_INVALID';
}
