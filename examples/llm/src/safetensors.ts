// safetensors: an 8-byte little-endian header length, a JSON header mapping each tensor name to
// { dtype, shape, data_offsets: [begin, end] } (offsets relative to the end of the header), then the
// raw little-endian data. The header is validated in full before any tensor is read.
import { float16ToNumber } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';

export type SafetensorsDtype = 'F32' | 'F16' | 'BF16';

export interface SafetensorsEntry {
  readonly name: string;
  readonly dtype: SafetensorsDtype;
  readonly shape: readonly number[];
  /** Absolute byte range in the file. */
  readonly begin: number;
  readonly end: number;
}

/** Headers larger than this are refused (the format's own reference reader uses 100 MB). */
const MAX_HEADER_BYTES = 100_000_000;
const ELEMENT_BYTES: Readonly<Record<SafetensorsDtype, number>> = { F32: 4, F16: 2, BF16: 2 };

/** One safetensors file: its validated entries and the bytes they point into. */
export class Safetensors {
  private readonly entries = new Map<string, SafetensorsEntry>();

  private constructor(
    readonly file: string,
    private readonly bytes: Uint8Array,
  ) {}

  /** Validates the header of `bytes` (read from `file`, named in errors). */
  static parse(bytes: Uint8Array, file: string): Safetensors {
    const bad = (reason: string) => TsgeError.of('TSGE-E3501', { file, reason });
    if (bytes.byteLength < 8) throw bad(`${bytes.byteLength} bytes; the header length alone takes 8`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const length = view.getBigUint64(0, true);
    if (length > BigInt(Math.min(MAX_HEADER_BYTES, bytes.byteLength - 8)))
      throw bad(`header length ${length} exceeds the file (${bytes.byteLength} bytes) or the limit ${MAX_HEADER_BYTES}`);
    const dataStart = 8 + Number(length);
    let header: unknown;
    try {
      header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, dataStart)));
    } catch (error) {
      throw bad(`the header is not UTF-8 JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (typeof header !== 'object' || header === null || Array.isArray(header)) throw bad('the header is not a JSON object');
    const result = new Safetensors(file, bytes);
    const dataBytes = bytes.byteLength - dataStart;
    for (const [name, value] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      result.entries.set(name, entryOf(name, value, dataStart, dataBytes, file));
    }
    return result;
  }

  get names(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  entry(name: string): SafetensorsEntry {
    const entry = this.entries.get(name);
    if (!entry) throw TsgeError.of('TSGE-E3502', { file: this.file, tensor: name, reason: 'not in the file' });
    return entry;
  }

  /** The tensor as float32 (F16 and BF16 widened). */
  float32(name: string): Float32Array {
    const e = this.entry(name);
    const count = (e.end - e.begin) / ELEMENT_BYTES[e.dtype];
    // copy first: the data offsets need not be aligned to the element size
    const raw = this.bytes.slice(e.begin, e.end);
    if (e.dtype === 'F32') return new Float32Array(raw.buffer, 0, count);
    const halves = new Uint16Array(raw.buffer, 0, count);
    const out = new Float32Array(count);
    if (e.dtype === 'F16') for (let i = 0; i < count; i++) out[i] = float16ToNumber(halves[i] as number);
    else {
      const bits = new Uint32Array(out.buffer);
      for (let i = 0; i < count; i++) bits[i] = (halves[i] as number) << 16;
    }
    return out;
  }
}

function entryOf(name: string, value: unknown, dataStart: number, dataBytes: number, file: string): SafetensorsEntry {
  const bad = (reason: string) => TsgeError.of('TSGE-E3502', { file, tensor: name, reason });
  if (typeof value !== 'object' || value === null) throw bad('its header entry is not an object');
  const fields = value as Record<string, unknown>;
  const dtype = Object.hasOwn(fields, 'dtype') ? fields.dtype : undefined;
  if (dtype !== 'F32' && dtype !== 'F16' && dtype !== 'BF16')
    throw bad(`dtype ${JSON.stringify(dtype)} is not supported (F32, F16, BF16 are)`);
  const shape = Object.hasOwn(fields, 'shape') ? fields.shape : undefined;
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0))
    throw bad(`shape ${JSON.stringify(shape)} is not a list of non-negative integers`);
  const offsets = Object.hasOwn(fields, 'data_offsets') ? fields.data_offsets : undefined;
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0))
    throw bad(`data_offsets ${JSON.stringify(offsets)} is not a pair of non-negative integers`);
  const [begin, end] = offsets as [number, number];
  if (begin > end || end > dataBytes) throw bad(`data_offsets [${begin}, ${end}] are not within the ${dataBytes} data bytes of the file`);
  const count = (shape as number[]).reduce((a, b) => a * b, 1);
  if (count * ELEMENT_BYTES[dtype] !== end - begin)
    throw bad(`shape [${shape.join(', ')}] of ${dtype} needs ${count * ELEMENT_BYTES[dtype]} bytes; data_offsets give ${end - begin}`);
  return { name, dtype, shape: shape as number[], begin: dataStart + begin, end: dataStart + end };
}

/** Writes float32 tensors as a safetensors file (for tests and tools). */
export function writeSafetensors(tensors: Readonly<Record<string, { shape: readonly number[]; data: Float32Array }>>): Uint8Array {
  const header: Record<string, unknown> = {};
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8); // data aligned to 8, as the format recommends
  const head = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + head.byteLength + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.byteLength), true);
  out.set(head, 8);
  let at = 8 + head.byteLength;
  for (const t of Object.values(tensors)) {
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at);
    at += t.data.byteLength;
  }
  return out;
}
