import { type DataType, type HostTensor, type TensorStorage, DTYPE_BYTES, createTensor, dataTypeFromOnnx } from '@tsge/metadef';
import { int64ToBigInt, int64ToNumber } from '../internal/int64.js';
import { malformed } from '../internal/problem.js';
import type { ISparseTensorProto, ITensorProto } from '../internal/proto.js';

/** Upper bound on the elements of one tensor (2^31-1): larger claims are malformed, not allocated. */
export const MAX_TENSOR_ELEMENTS = 2 ** 31 - 1;
const MAX_RANK = 64;
/** Densifying a sparse tensor allocates its full size: cap it (2^26 elements) so a tiny file cannot claim gigabytes. */
export const MAX_SPARSE_DENSE_ELEMENTS = 2 ** 26;

export function tensorDataType(code: number | null | undefined): DataType {
  const dtype = dataTypeFromOnnx(code ?? 0);
  if (!dtype) throw malformed(`unknown tensor data_type ${code ?? 0}`);
  return dtype;
}

/** Validated dims of a TensorProto: non-negative, rank and element count bounded. */
export function readDims(raw: readonly unknown[] | null | undefined): number[] {
  const dims = (raw ?? []).map((d) => int64ToNumber(d as number));
  if (dims.length > MAX_RANK) throw malformed(`tensor rank ${dims.length} exceeds ${MAX_RANK}`);
  let count = 1;
  for (const d of dims) {
    if (!Number.isInteger(d) || d < 0) throw malformed(`tensor has invalid dim ${d}`);
    count *= d;
  }
  if (count > MAX_TENSOR_ELEMENTS) throw malformed(`tensor has ${count} elements, more than ${MAX_TENSOR_ELEMENTS}`);
  return dims;
}

function isExternal(proto: ITensorProto): boolean {
  return proto.dataLocation === 1;
}

/** Bytes a tensor of this dtype and count occupies in raw_data (4-bit types pack two per byte). */
export function rawByteLength(dtype: DataType, count: number): number {
  if (dtype === 'int4' || dtype === 'uint4' || dtype === 'float4e2m1') return Math.ceil(count / 2);
  return count * DTYPE_BYTES[dtype];
}

/**
 * Decodes a TensorProto into a HostTensor. `external` holds the bytes of external data when the
 * tensor has `data_location: EXTERNAL` (the caller reads them); without them such a tensor is an error.
 */
export function decodeTensor(proto: ITensorProto, external?: Uint8Array): HostTensor {
  const dtype = tensorDataType(proto.dataType);
  const dims = readDims(proto.dims as unknown[]);
  if (proto.segment) throw malformed(`tensor ${proto.name ?? ''} is segmented; segments are not supported`);
  let count = 1;
  for (const d of dims) count *= d;
  if (isExternal(proto) && !external) throw malformed(`tensor ${proto.name ?? ''} has external data that was not loaded`);
  const raw = external ?? (proto.rawData && proto.rawData.length > 0 ? proto.rawData : undefined);
  if (dtype === 'string') return createTensor('string', dims, decodeStrings(proto, count));
  if (raw) return createTensor(dtype, dims, fromRaw(dtype, raw, count));
  return createTensor(dtype, dims, fromFields(dtype, proto, count));
}

function decodeStrings(proto: ITensorProto, count: number): string[] {
  const items = proto.stringData ?? [];
  if (items.length !== count) throw malformed(`string tensor ${proto.name ?? ''} has ${items.length} strings for ${count} elements`);
  const decoder = new TextDecoder('utf-8');
  return items.map((b) => decoder.decode(b));
}

function copyAligned(raw: Uint8Array, byteLength: number): ArrayBuffer {
  const buffer = new ArrayBuffer(byteLength);
  new Uint8Array(buffer).set(raw.subarray(0, byteLength));
  return buffer;
}

function fromRaw(dtype: DataType, raw: Uint8Array, count: number): TensorStorage {
  const need = rawByteLength(dtype, count);
  if (raw.length !== need) throw malformed(`raw data of a ${dtype} tensor of ${count} elements has ${raw.length} bytes, expected ${need}`);
  switch (dtype) {
    case 'int4':
    case 'uint4':
    case 'float4e2m1':
      return unpackNibbles(dtype, (i) => raw[i] as number, count);
    case 'bool': {
      const out = new Uint8Array(count);
      for (let i = 0; i < count; i++) out[i] = raw[i] ? 1 : 0;
      return out;
    }
    default: {
      const buffer = copyAligned(raw, need);
      return viewOf(dtype, buffer, count);
    }
  }
}

function viewOf(dtype: DataType, buffer: ArrayBuffer, count: number): TensorStorage {
  switch (dtype) {
    case 'float32':
      return new Float32Array(buffer, 0, count);
    case 'complex64':
      return new Float32Array(buffer, 0, count * 2);
    case 'float64':
      return new Float64Array(buffer, 0, count);
    case 'complex128':
      return new Float64Array(buffer, 0, count * 2);
    case 'int8':
      return new Int8Array(buffer, 0, count);
    case 'int16':
      return new Int16Array(buffer, 0, count);
    case 'uint16':
    case 'float16':
    case 'bfloat16':
      return new Uint16Array(buffer, 0, count);
    case 'int32':
      return new Int32Array(buffer, 0, count);
    case 'uint32':
      return new Uint32Array(buffer, 0, count);
    case 'int64':
      return new BigInt64Array(buffer, 0, count);
    case 'uint64':
      return new BigUint64Array(buffer, 0, count);
    default:
      return new Uint8Array(buffer, 0, count);
  }
}

/** 4-bit types: two elements per byte, low nibble first; int4 is sign-extended. */
function unpackNibbles(dtype: DataType, byteAt: (i: number) => number, count: number): TensorStorage {
  const out = dtype === 'int4' ? new Int8Array(count) : new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const byte = byteAt(i >> 1);
    let nibble = i & 1 ? (byte >> 4) & 0xf : byte & 0xf;
    if (dtype === 'int4' && nibble >= 8) nibble -= 16;
    out[i] = nibble;
  }
  return out;
}

function expectLength(what: string, actual: number, expected: number): void {
  if (actual !== expected) throw malformed(`${what} has ${actual} values, expected ${expected}`);
}

function fromFields(dtype: DataType, proto: ITensorProto, count: number): TensorStorage {
  switch (dtype) {
    case 'float32':
    case 'complex64': {
      const values = proto.floatData ?? [];
      expectLength(`${dtype} tensor float_data`, values.length, dtype === 'complex64' ? count * 2 : count);
      return Float32Array.from(values);
    }
    case 'float64':
    case 'complex128': {
      const values = proto.doubleData ?? [];
      expectLength(`${dtype} tensor double_data`, values.length, dtype === 'complex128' ? count * 2 : count);
      return Float64Array.from(values);
    }
    case 'int64': {
      const values = proto.int64Data ?? [];
      expectLength('int64 tensor int64_data', values.length, count);
      const out = new BigInt64Array(count);
      for (let i = 0; i < count; i++) out[i] = int64ToBigInt(values[i]);
      return out;
    }
    case 'uint64':
    case 'uint32': {
      const values = proto.uint64Data ?? [];
      expectLength(`${dtype} tensor uint64_data`, values.length, count);
      if (dtype === 'uint32') {
        const out = new Uint32Array(count);
        for (let i = 0; i < count; i++) out[i] = Number(int64ToBigInt(values[i], true) & 0xffffffffn);
        return out;
      }
      const out = new BigUint64Array(count);
      for (let i = 0; i < count; i++) out[i] = int64ToBigInt(values[i], true);
      return out;
    }
    case 'int4':
    case 'uint4':
    case 'float4e2m1': {
      const values = proto.int32Data ?? [];
      expectLength(`${dtype} tensor int32_data`, values.length, Math.ceil(count / 2));
      return unpackNibbles(dtype, (i) => (values[i] as number) & 0xff, count);
    }
    default: {
      // int32 and every narrower type store one element per int32_data entry
      const values = proto.int32Data ?? [];
      expectLength(`${dtype} tensor int32_data`, values.length, count);
      const out = viewOf(dtype, new ArrayBuffer(count * DTYPE_BYTES[dtype]), count) as Exclude<
        TensorStorage,
        string[] | BigInt64Array | BigUint64Array
      >;
      if (dtype === 'bool') for (let i = 0; i < count; i++) out[i] = values[i] ? 1 : 0;
      else for (let i = 0; i < count; i++) out[i] = values[i] as number;
      return out;
    }
  }
}

/** Densifies a SparseTensorProto: values [NNZ], indices [NNZ] (linear) or [NNZ, rank] (coordinates). */
export function densifySparse(sparse: ISparseTensorProto, values: HostTensor, indices: HostTensor): HostTensor {
  const dims = readDims(sparse.dims as unknown[]);
  let count = 1;
  for (const d of dims) count *= d;
  if (count > MAX_SPARSE_DENSE_ELEMENTS)
    throw malformed(`sparse tensor densifies to ${count} elements, more than ${MAX_SPARSE_DENSE_ELEMENTS}`);
  const nnz = values.dims.length === 1 ? (values.dims[0] as number) : -1;
  if (nnz < 0) throw malformed('sparse tensor values must be one-dimensional');
  const out = createTensor(values.type, dims);
  const idx = indices.data;
  const linear = indices.dims.length === 1;
  if (linear ? indices.dims[0] !== nnz : indices.dims[0] !== nnz || indices.dims[1] !== dims.length) {
    throw malformed(`sparse tensor indices of shape [${indices.dims.join(',')}] do not fit ${nnz} values of rank ${dims.length}`);
  }
  const target = out.data as unknown as unknown[];
  const source = values.data as unknown as unknown[];
  for (let k = 0; k < nnz; k++) {
    let offset = 0;
    if (linear) offset = Number(idx[k]);
    else {
      for (let axis = 0; axis < dims.length; axis++) {
        const c = Number(idx[k * dims.length + axis]);
        if (c < 0 || c >= (dims[axis] as number)) throw malformed(`sparse index ${c} out of range on axis ${axis}`);
        offset = offset * (dims[axis] as number) + c;
      }
    }
    if (!(offset >= 0 && offset < count)) throw malformed(`sparse index ${offset} out of range`);
    target[offset] = source[k];
  }
  return out;
}
