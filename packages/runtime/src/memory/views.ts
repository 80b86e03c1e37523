import type { DataType, TypedArray } from '@tsge/metadef';

// The runtime imports only types from metadef (ARCHITECTURE.md §2), so the device layout of each
// dtype is spelled out here: storage class, lanes per element (complex: 2) and bytes per element.
type ViewClass = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray; readonly BYTES_PER_ELEMENT: number };
const LAYOUT: Readonly<Record<DataType, readonly [ViewClass | undefined, number]>> = {
  float32: [Float32Array, 1],
  complex64: [Float32Array, 2],
  float64: [Float64Array, 1],
  complex128: [Float64Array, 2],
  int8: [Int8Array, 1],
  int4: [Int8Array, 1],
  uint8: [Uint8Array, 1],
  bool: [Uint8Array, 1],
  uint4: [Uint8Array, 1],
  float8e4m3fn: [Uint8Array, 1],
  float8e4m3fnuz: [Uint8Array, 1],
  float8e5m2: [Uint8Array, 1],
  float8e5m2fnuz: [Uint8Array, 1],
  float4e2m1: [Uint8Array, 1],
  int16: [Int16Array, 1],
  uint16: [Uint16Array, 1],
  float16: [Uint16Array, 1],
  bfloat16: [Uint16Array, 1],
  int32: [Int32Array, 1],
  uint32: [Uint32Array, 1],
  int64: [BigInt64Array, 1],
  uint64: [BigUint64Array, 1],
  string: [undefined, 0],
};

/** Bytes one element of `dtype` takes in device memory (0 for strings, which never live there). */
export function elementBytes(dtype: DataType): number {
  const [Ctor, lanes] = LAYOUT[dtype];
  return Ctor ? Ctor.BYTES_PER_ELEMENT * lanes : 0;
}

/**
 * A typed view of `count` elements of `dtype` at byte `offset` of `buffer` (no copy). Throws a
 * RangeError when the view would leave the buffer or is misaligned, so a bad plan never reads
 * or writes outside its place.
 */
export function viewOf(buffer: ArrayBufferLike, dtype: DataType, offset: number, count: number): TypedArray {
  const [Ctor, laneCount] = LAYOUT[dtype] ?? [undefined, 0];
  if (!Ctor) throw new RangeError(`dtype ${dtype} has no device representation`);
  const lanes = count * laneCount;
  const bytes = lanes * Ctor.BYTES_PER_ELEMENT;
  if (!Number.isInteger(offset) || offset < 0 || offset + bytes > buffer.byteLength) {
    throw new RangeError(`view of ${bytes} bytes at ${offset} leaves device memory of ${buffer.byteLength} bytes`);
  }
  if (offset % Ctor.BYTES_PER_ELEMENT !== 0) throw new RangeError(`offset ${offset} is not aligned for ${dtype}`);
  return new Ctor(buffer, offset, lanes);
}

/** Bytes a dense tensor of `dtype` with `count` elements occupies in device memory. */
export function byteSize(dtype: DataType, count: number): number {
  return count * elementBytes(dtype);
}

export function alignUp(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}
