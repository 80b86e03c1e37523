import { type DataType, type TypedArray, storageConstructor, storageLanes } from '../types/dtype.js';
import type { HostTensor } from '../types/tensor.js';

/**
 * Raw tensor bytes in `TensorDef.data`:
 * - numeric types: the host storage as little-endian bytes (int64 as 8-byte two's complement,
 *   float16/bfloat16 as 16-bit patterns, complex as interleaved re/im, bool as one byte 0/1);
 * - 4-bit types (int4, uint4, float4e2m1): packed two per byte, element 2k in the low nibble;
 * - string: per element a uint32 little-endian byte length followed by that many UTF-8 bytes.
 */
export function encodeTensorData(tensor: HostTensor): Uint8Array {
  const data = tensor.data;
  if (Array.isArray(data)) return encodeStrings(data);
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (isFourBit(tensor.type)) return packNibbles(bytes);
  // a view: the protobuf writer copies it when the message is finished
  return bytes;
}

export type TensorDataResult = { readonly ok: true; readonly tensor: HostTensor } | { readonly ok: false; readonly expected: string };

/** Decodes `bytes` as `count` elements (the product of static `dims`); never allocates more than the bytes justify. */
export function decodeTensorData(dtype: DataType, dims: readonly number[], bytes: Uint8Array): TensorDataResult {
  const count = boundedCount(dims, bytes.length * 2 + 1);
  if (dtype === 'string') return decodeStrings(dims, count, bytes);
  if (count === undefined) return { ok: false, expected: 'more bytes than the file holds' };
  const Ctor = storageConstructor(dtype) as NonNullable<ReturnType<typeof storageConstructor>>;
  const lanes = count * storageLanes(dtype);
  const expectedBytes = isFourBit(dtype) ? Math.ceil(lanes / 2) : lanes * Ctor.BYTES_PER_ELEMENT;
  if (bytes.length !== expectedBytes) return { ok: false, expected: String(expectedBytes) };
  const storage: TypedArray = new Ctor(lanes);
  const view = new Uint8Array(storage.buffer, storage.byteOffset, storage.byteLength);
  if (isFourBit(dtype)) unpackNibbles(bytes, view, dtype === 'int4');
  else view.set(bytes);
  return { ok: true, tensor: { type: dtype, dims: [...dims], data: storage } };
}

function isFourBit(dtype: DataType): boolean {
  return dtype === 'int4' || dtype === 'uint4' || dtype === 'float4e2m1';
}

/** Product of dims, or undefined once it exceeds `limit` (so huge dims never reach an allocation). */
function boundedCount(dims: readonly number[], limit: number): number | undefined {
  let count = 1;
  for (const d of dims) if (d === 0) return 0;
  for (const d of dims) {
    count *= d;
    if (count > limit) return undefined;
  }
  return count;
}

function packNibbles(values: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(values.length / 2));
  for (let i = 0; i < values.length; i++) out[i >> 1] |= ((values[i] as number) & 0x0f) << ((i & 1) * 4);
  return out;
}

function unpackNibbles(packed: Uint8Array, out: Uint8Array, signed: boolean): void {
  for (let i = 0; i < out.length; i++) {
    const nibble = ((packed[i >> 1] as number) >> ((i & 1) * 4)) & 0x0f;
    // int4 is stored in an Int8Array: sign-extend through the byte view
    out[i] = signed && nibble & 0x08 ? nibble | 0xf0 : nibble;
  }
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

function encodeStrings(values: readonly string[]): Uint8Array {
  const encoded = values.map((s) => utf8Encoder.encode(s));
  const total = encoded.reduce((sum, e) => sum + 4 + e.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let pos = 0;
  for (const e of encoded) {
    view.setUint32(pos, e.length, true);
    out.set(e, pos + 4);
    pos += 4 + e.length;
  }
  return out;
}

function decodeStrings(dims: readonly number[], count: number | undefined, bytes: Uint8Array): TensorDataResult {
  // each element takes at least its 4-byte length
  if (count === undefined || count * 4 > bytes.length)
    return { ok: false, expected: `at least ${count === undefined ? 'more than the file holds' : count * 4}` };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Array<string>(count);
  let pos = 0;
  for (let i = 0; i < count; i++) {
    if (pos + 4 > bytes.length) return { ok: false, expected: `room for the length of string ${i}` };
    const length = view.getUint32(pos, true);
    pos += 4;
    if (length > bytes.length - pos) return { ok: false, expected: `${length} more bytes for string ${i}` };
    values[i] = utf8Decoder.decode(bytes.subarray(pos, pos + length));
    pos += length;
  }
  if (pos !== bytes.length) return { ok: false, expected: `exactly ${pos} (string lengths and data disagree)` };
  return { ok: true, tensor: { type: 'string', dims: [...dims], data: values } };
}
