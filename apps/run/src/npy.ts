import type { DataType, HostTensor } from '@tsge/metadef';
import { TsgeError, createTensor, elementCount, storageConstructor } from '@tsge/metadef';

/** numpy dtype descr ↔ tsge dtype (little-endian only). */
const DESCR: Readonly<Partial<Record<DataType, string>>> = {
  float32: '<f4',
  float64: '<f8',
  float16: '<f2',
  int8: '|i1',
  uint8: '|u1',
  int16: '<i2',
  uint16: '<u2',
  int32: '<i4',
  uint32: '<u4',
  int64: '<i8',
  uint64: '<u8',
  bool: '|b1',
};
const FROM_DESCR = new Map(Object.entries(DESCR).map(([k, v]) => [v, k as DataType]));

/** Encodes a tensor as a version-1.0 `.npy` file. */
export function encodeNpy(tensor: HostTensor): Uint8Array {
  const descr = DESCR[tensor.type];
  if (!descr || Array.isArray(tensor.data))
    throw TsgeError.of('TSGE-E7002', { option: '--output-dir', value: tensor.type, reason: 'this dtype has no .npy encoding' });
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64);
  header += '\n';
  const data = tensor.data as ArrayBufferView;
  const out = new Uint8Array(10 + header.length + data.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(new TextEncoder().encode(header), 10);
  out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 10 + header.length);
  return out;
}

/** Decodes a `.npy` file (C order, little-endian, versions 1–3). */
export function decodeNpy(bytes: Uint8Array, fileName = '<npy>'): HostTensor {
  const bad = (reason: string): TsgeError => TsgeError.of('TSGE-E2001', { format: '.npy', reason }, { file: fileName });
  if (bytes.length < 10 || bytes[0] !== 0x93 || String.fromCharCode(...bytes.subarray(1, 6)) !== 'NUMPY') throw bad('bad magic');
  const major = bytes[6] as number;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  if (start + headerLength > bytes.length) throw bad('header longer than the file');
  const header = new TextDecoder().decode(bytes.subarray(start, start + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw bad('unreadable header');
  if (fortran === 'True') throw bad('Fortran order is not supported');
  const dtype = FROM_DESCR.get(descr);
  if (!dtype) throw bad(`unsupported dtype ${descr}`);
  const dims = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map(Number);
  if (dims.some((d) => !Number.isInteger(d) || d < 0)) throw bad('bad shape');
  const count = elementCount(dims);
  const Ctor = storageConstructor(dtype);
  if (!Ctor) throw bad(`unsupported dtype ${descr}`);
  const offset = start + headerLength;
  if (offset + count * Ctor.BYTES_PER_ELEMENT > bytes.length) throw bad('data shorter than the shape needs');
  const copy = bytes.slice(offset, offset + count * Ctor.BYTES_PER_ELEMENT);
  return createTensor(dtype, dims, new Ctor(copy.buffer, 0, count));
}
