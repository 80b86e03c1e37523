/**
 * Data types, named as in onnxruntime-common (plus the ONNX types it lacks).
 * Host storage: float16/bfloat16 as raw 16-bit patterns in Uint16Array; float8 kinds as raw bytes;
 * int4/uint4 unpacked, one element per byte; complex as interleaved (re, im) pairs; int64/uint64 as
 * BigInt64Array/BigUint64Array; bool as Uint8Array of 0/1; string as string[].
 */
export const DATA_TYPES = [
  'float32',
  'uint8',
  'int8',
  'uint16',
  'int16',
  'int32',
  'int64',
  'string',
  'bool',
  'float16',
  'float64',
  'uint32',
  'uint64',
  'complex64',
  'complex128',
  'bfloat16',
  'float8e4m3fn',
  'float8e4m3fnuz',
  'float8e5m2',
  'float8e5m2fnuz',
  'uint4',
  'int4',
  'float4e2m1',
] as const;

export type DataType = (typeof DATA_TYPES)[number];

export function isDataType(value: unknown): value is DataType {
  return typeof value === 'string' && (DATA_TYPES as readonly string[]).includes(value);
}

/** ONNX `TensorProto.DataType` numbers. */
export const ONNX_DTYPE: Readonly<Record<DataType, number>> = {
  float32: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  string: 8,
  bool: 9,
  float16: 10,
  float64: 11,
  uint32: 12,
  uint64: 13,
  complex64: 14,
  complex128: 15,
  bfloat16: 16,
  float8e4m3fn: 17,
  float8e4m3fnuz: 18,
  float8e5m2: 19,
  float8e5m2fnuz: 20,
  uint4: 21,
  int4: 22,
  float4e2m1: 23,
};

/**
 * GE `ge.proto.DataType` numbers (the proto numbering, not GE's C++ enum). Types GE's proto has
 * no number for are `undefined`; the .air writer records them in an attribute instead.
 */
export const GE_DTYPE: Readonly<Record<DataType, number | undefined>> = {
  float32: 1,
  float16: 2,
  int8: 3,
  uint8: 4,
  int16: 5,
  uint16: 6,
  int32: 7,
  int64: 8,
  uint32: 9,
  uint64: 10,
  bool: 11,
  float64: 12,
  string: 13,
  complex64: 16,
  complex128: 17,
  bfloat16: 27,
  int4: 28,
  uint4: undefined,
  float8e4m3fn: 35,
  float8e4m3fnuz: undefined,
  float8e5m2: 34,
  float8e5m2fnuz: undefined,
  float4e2m1: 39,
};

function invert(table: Readonly<Record<DataType, number | undefined>>): ReadonlyMap<number, DataType> {
  const map = new Map<number, DataType>();
  for (const [name, num] of Object.entries(table)) if (num !== undefined) map.set(num, name as DataType);
  return map;
}
const FROM_ONNX = invert(ONNX_DTYPE);
const FROM_GE = invert(GE_DTYPE);

export function dataTypeFromOnnx(code: number): DataType | undefined {
  return FROM_ONNX.get(code);
}
export function dataTypeFromGe(code: number): DataType | undefined {
  return FROM_GE.get(code);
}

/** Bytes per element in device memory (strings: 0, they never live in device memory). */
export const DTYPE_BYTES: Readonly<Record<DataType, number>> = {
  float32: 4,
  uint8: 1,
  int8: 1,
  uint16: 2,
  int16: 2,
  int32: 4,
  int64: 8,
  string: 0,
  bool: 1,
  float16: 2,
  float64: 8,
  uint32: 4,
  uint64: 8,
  complex64: 8,
  complex128: 16,
  bfloat16: 2,
  float8e4m3fn: 1,
  float8e4m3fnuz: 1,
  float8e5m2: 1,
  float8e5m2fnuz: 1,
  uint4: 1,
  int4: 1,
  float4e2m1: 1,
};

export type TypedArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

export type TensorStorage = TypedArray | string[];

export type TypedArrayConstructor = {
  new (length: number): TypedArray;
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): TypedArray;
  readonly BYTES_PER_ELEMENT: number;
};

/** The typed-array class that stores a dtype on the host (undefined for string). */
export function storageConstructor(dtype: DataType): TypedArrayConstructor | undefined {
  switch (dtype) {
    case 'float32':
    case 'complex64':
      return Float32Array as TypedArrayConstructor;
    case 'float64':
    case 'complex128':
      return Float64Array as TypedArrayConstructor;
    case 'int8':
    case 'int4':
      return Int8Array as TypedArrayConstructor;
    case 'uint8':
    case 'bool':
    case 'uint4':
    case 'float8e4m3fn':
    case 'float8e4m3fnuz':
    case 'float8e5m2':
    case 'float8e5m2fnuz':
    case 'float4e2m1':
      return Uint8Array as TypedArrayConstructor;
    case 'int16':
      return Int16Array as TypedArrayConstructor;
    case 'uint16':
    case 'float16':
    case 'bfloat16':
      return Uint16Array as TypedArrayConstructor;
    case 'int32':
      return Int32Array as TypedArrayConstructor;
    case 'uint32':
      return Uint32Array as TypedArrayConstructor;
    case 'int64':
      return BigInt64Array as TypedArrayConstructor;
    case 'uint64':
      return BigUint64Array as TypedArrayConstructor;
    case 'string':
      return undefined;
  }
}

/** Storage elements per logical element (2 for complex types). */
export function storageLanes(dtype: DataType): number {
  return dtype === 'complex64' || dtype === 'complex128' ? 2 : 1;
}

export const FLOAT_TYPES: readonly DataType[] = ['float32', 'float64', 'float16', 'bfloat16'];
export const INT_TYPES: readonly DataType[] = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'];
export const NUMERIC_TYPES: readonly DataType[] = [...FLOAT_TYPES, ...INT_TYPES];
export const ALL_TENSOR_TYPES: readonly DataType[] = [...NUMERIC_TYPES, 'bool', 'string'];

export function isFloatType(dtype: DataType): boolean {
  return dtype === 'float32' || dtype === 'float64' || dtype === 'float16' || dtype === 'bfloat16';
}
export function isBigIntType(dtype: DataType): boolean {
  return dtype === 'int64' || dtype === 'uint64';
}
