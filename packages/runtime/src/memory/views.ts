import type { DataType, TypedArray } from '@tsge/metadef';
import { DTYPE_BYTES, storageConstructor, storageLanes } from '@tsge/metadef';

/**
 * A typed view of `count` elements of `dtype` at byte `offset` of `buffer` (no copy). Throws a
 * RangeError when the view would leave the buffer or is misaligned, so a bad plan never reads
 * or writes outside its place.
 */
export function viewOf(buffer: ArrayBufferLike, dtype: DataType, offset: number, count: number): TypedArray {
  const Ctor = storageConstructor(dtype);
  if (!Ctor) throw new RangeError(`dtype ${dtype} has no device representation`);
  const lanes = count * storageLanes(dtype);
  const bytes = count * DTYPE_BYTES[dtype];
  if (!Number.isInteger(offset) || offset < 0 || offset + bytes > buffer.byteLength) {
    throw new RangeError(`view of ${bytes} bytes at ${offset} leaves device memory of ${buffer.byteLength} bytes`);
  }
  if (offset % Ctor.BYTES_PER_ELEMENT !== 0) throw new RangeError(`offset ${offset} is not aligned for ${dtype}`);
  return new Ctor(buffer, offset, lanes);
}

/** Bytes a dense tensor of `dtype` with `count` elements occupies in device memory. */
export function byteSize(dtype: DataType, count: number): number {
  return count * DTYPE_BYTES[dtype];
}

export function alignUp(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}
