import { TsgeError, float16ToNumber } from '@tsge/metadef';
import protobuf from 'protobufjs/minimal.js';
import type { BlobValues } from './blobs.js';

/** Wire types. */
const VARINT = 0;
const LEN = 2;

/** Upper bound on the values a caffemodel may hold (4 GiB of float32). */
const MAX_VALUES = 2 ** 30;

interface Span {
  readonly start: number;
  readonly end: number;
}

/** The length-delimited fields of a message, by field number (other wire types are skipped). */
function fields(bytes: Uint8Array, span: Span): Map<number, Span[]> {
  const reader = protobuf.Reader.create(bytes.subarray(0, span.end));
  reader.pos = span.start;
  const out = new Map<number, Span[]>();
  while (reader.pos < span.end) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (wire === LEN) {
      const length = reader.uint32();
      const start = reader.pos;
      if (start + length > span.end) throw new RangeError(`field ${field} runs past its message`);
      const list = out.get(field) ?? [];
      list.push({ start, end: start + length });
      out.set(field, list);
      reader.pos = start + length;
    } else reader.skipType(wire);
  }
  return out;
}

/** Varint fields (the legacy num/channels/height/width and raw_data_type). */
function varints(bytes: Uint8Array, span: Span): Map<number, number> {
  const reader = protobuf.Reader.create(bytes.subarray(0, span.end));
  reader.pos = span.start;
  const out = new Map<number, number>();
  while (reader.pos < span.end) {
    const tag = reader.uint32();
    if ((tag & 7) === VARINT) out.set(tag >>> 3, Number(reader.int64().toString()));
    else reader.skipType(tag & 7);
  }
  return out;
}

function text(bytes: Uint8Array, span: Span | undefined): string {
  return span ? new TextDecoder().decode(bytes.subarray(span.start, span.end)) : '';
}

function packedDims(bytes: Uint8Array, span: Span): number[] {
  const dims: number[] = [];
  const reader = protobuf.Reader.create(bytes.subarray(0, span.end));
  reader.pos = span.start;
  while (reader.pos < span.end) {
    const tag = reader.uint32();
    if (tag >>> 3 !== 1) {
      reader.skipType(tag & 7);
      continue;
    }
    if ((tag & 7) === LEN) {
      const end = reader.uint32() + reader.pos;
      while (reader.pos < end) dims.push(Number(reader.int64().toString()));
    } else dims.push(Number(reader.int64().toString()));
  }
  return dims;
}

/** Float values of a repeated float/double field, packed (one span each) or not (unpacked ones are rare). */
function floats(bytes: Uint8Array, spans: readonly Span[] | undefined, width: 4 | 8): Float32Array | undefined {
  if (!spans?.length) return undefined;
  const total = spans.reduce((n, s) => n + (s.end - s.start) / width, 0);
  if (!Number.isInteger(total) || total > MAX_VALUES) throw new RangeError('a blob holds a partial or oversized value list');
  const out = new Float32Array(total);
  let k = 0;
  for (const s of spans) {
    const view = new DataView(bytes.buffer, bytes.byteOffset + s.start, s.end - s.start);
    for (let off = 0; off < s.end - s.start; off += width) out[k++] = width === 4 ? view.getFloat32(off, true) : view.getFloat64(off, true);
  }
  return out;
}

function blob(bytes: Uint8Array, span: Span, where: string): BlobValues {
  const f = fields(bytes, span);
  const shape = f.get(7)?.[0];
  let dims: number[];
  if (shape) dims = packedDims(bytes, shape);
  else {
    const v = varints(bytes, span);
    const legacy = [1, 2, 3, 4].map((n) => v.get(n) ?? 0);
    dims = legacy.some((d) => d > 0) ? legacy.map((d) => Math.max(d, 1)) : [];
  }
  let data = floats(bytes, f.get(5), 4) ?? floats(bytes, f.get(8), 8);
  const raw = f.get(12)?.[0];
  if (!data && raw) {
    const type = varints(bytes, span).get(10) ?? 1;
    const view = new DataView(bytes.buffer, bytes.byteOffset + raw.start, raw.end - raw.start);
    const width = type === 2 ? 2 : type === 0 ? 8 : 4;
    if (type > 2) throw new RangeError(`${where}: raw data type ${type} is not a float type`);
    data = new Float32Array(Math.floor((raw.end - raw.start) / width));
    for (let i = 0; i < data.length; i++)
      data[i] =
        width === 2
          ? float16ToNumber(view.getUint16(2 * i, true))
          : width === 8
            ? view.getFloat64(8 * i, true)
            : view.getFloat32(4 * i, true);
  }
  return { dims, data: data ?? new Float32Array(0) };
}

/**
 * Reads only the weights of a caffemodel: layer name → blobs, decoded straight into Float32Array
 * (a generic decode would build JS arrays of hundreds of millions of numbers for real models).
 * Both V2 `layer` (field 100: name 1, blobs 7) and V1 `layers` (field 2: name 4, blobs 6).
 */
export function readWeights(bytes: Uint8Array, file?: string): Map<string, BlobValues[]> {
  const out = new Map<string, BlobValues[]>();
  try {
    const net = fields(bytes, { start: 0, end: bytes.length });
    for (const [field, nameField, blobField] of [
      [100, 1, 7],
      [2, 4, 6],
    ] as const) {
      for (const layer of net.get(field) ?? []) {
        const f = fields(bytes, layer);
        const name = text(bytes, f.get(nameField)?.[0]);
        const blobs = (f.get(blobField) ?? []).map((s, i) => blob(bytes, s, `layer ${name} blob ${i}`));
        if (blobs.length) out.set(name, blobs);
      }
    }
  } catch (error) {
    throw TsgeError.of(
      'TSGE-E3202',
      { what: 'caffemodel', reason: error instanceof Error ? error.message : String(error) },
      file ? { file } : undefined,
      error,
    );
  }
  return out;
}
