// Schema-less protobuf mutation: any protobuf file (ONNX, .air, TensorFlow GraphDef, Caffe,
// MindIR, ...) is read as a tree of wire-format fields and written back with correct lengths,
// so a mutant still decodes as protobuf and reaches the reader's semantic checks.
import protobuf from 'protobufjs/minimal.js';
import type { Rng } from '../rng.js';
import { INTERESTING_INTS, mutateBytes } from './bytes.js';

const { Reader, Writer } = protobuf;
const Long = protobuf.util.Long as unknown as { fromString(text: string, unsigned: boolean): protobuf.Long };

export interface WireField {
  field: number;
  /** 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
  wire: 0 | 1 | 2 | 5;
  /** Varints, as unsigned 64-bit. */
  varint?: bigint;
  /** Fixed and length-delimited payloads. */
  bytes?: Uint8Array;
  /** A length-delimited payload that itself decodes as a message. */
  children?: WireField[];
}

const MAX_DEPTH = 12;
const MAX_FIELDS = 200_000;

/** The fields of `bytes`, or undefined when they are not a protobuf message. */
export function parseWire(bytes: Uint8Array, depth = 0, budget = { fields: MAX_FIELDS }): WireField[] | undefined {
  const reader = Reader.create(bytes);
  const fields: WireField[] = [];
  try {
    while (reader.pos < reader.len) {
      if (--budget.fields < 0) return undefined;
      const tag = reader.uint32();
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 0) return undefined;
      if (wire === 0) fields.push({ field, wire, varint: BigInt(reader.uint64().toString()) });
      else if (wire === 1 || wire === 5) {
        const size = wire === 1 ? 8 : 4;
        if (reader.pos + size > reader.len) return undefined;
        fields.push({ field, wire, bytes: bytes.slice(reader.pos, reader.pos + size) });
        reader.skip(size);
      } else if (wire === 2) {
        const payload = reader.bytes();
        const children = depth < MAX_DEPTH && payload.length >= 2 ? parseWire(payload, depth + 1, budget) : undefined;
        fields.push({ field, wire, bytes: payload, ...(children && children.length > 0 ? { children } : {}) });
      } else return undefined;
    }
  } catch {
    return undefined;
  }
  return fields;
}

export function encodeWire(fields: readonly WireField[]): Uint8Array {
  const writer = Writer.create();
  write(writer, fields);
  return writer.finish();
}

function write(writer: protobuf.Writer, fields: readonly WireField[]): void {
  for (const f of fields) {
    writer.uint32(((f.field << 3) | f.wire) >>> 0);
    if (f.wire === 0) writer.uint64(Long.fromString((f.varint ?? 0n).toString(), true));
    else if (f.wire === 2) {
      if (f.children) {
        writer.fork();
        write(writer, f.children);
        writer.ldelim();
      } else writer.bytes(f.bytes ?? new Uint8Array(0));
    } else {
      const size = f.wire === 1 ? 8 : 4;
      writeFixed(writer, f.bytes ?? new Uint8Array(size), size);
    }
  }
}

function writeFixed(writer: protobuf.Writer, payload: Uint8Array, size: number): void {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  if (size === 4) writer.fixed32(view.getUint32(0, true));
  else {
    writer.fixed32(view.getUint32(0, true));
    writer.fixed32(view.getUint32(4, true));
  }
}

interface Place {
  readonly list: WireField[];
  readonly index: number;
}

function places(fields: WireField[], out: Place[] = []): Place[] {
  fields.forEach((f, index) => {
    out.push({ list: fields, index });
    if (f.children) places(f.children, out);
  });
  return out;
}

const U64 = 1n << 64n;
const asU64 = (v: bigint): bigint => ((v % U64) + U64) % U64;
const INTERESTING_U64: readonly bigint[] = [
  ...INTERESTING_INTS.map((v) => asU64(BigInt(v))),
  1n << 31n,
  1n << 32n,
  (1n << 53n) + 1n,
  (1n << 63n) - 1n,
  1n << 63n,
  U64 - 1n,
  10n ** 9n,
];
const INTERESTING_FLOATS: readonly number[] = [0, -0, 1, -1, 0.5, Number.NaN, Infinity, -Infinity, 3.4e38, -3.4e38, 1e-45, 65504, 1e30];
const INTERESTING_STRINGS: readonly string[] = [
  '',
  'x',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '../../../../etc/passwd',
  '/dev/zero',
  'ai.onnx',
  'com.microsoft',
  '0',
  '-1',
  'x'.repeat(4096),
  '\u0000',
  '\ud800',
  '🙂',
];

/**
 * One structural mutation of a protobuf message (returns new bytes; falls back to a raw byte
 * mutation when `bytes` is not a message): a varint or fixed value set to an edge value, a string
 * replaced, a field removed, duplicated, moved or copied from elsewhere in the file.
 */
export function mutateWire(bytes: Uint8Array, rng: Rng): Uint8Array {
  const tree = parseWire(bytes);
  if (!tree || tree.length === 0) return mutateBytes(bytes, rng);
  const all = places(tree);
  const place = rng.pick(all);
  const f = place.list[place.index] as WireField;
  const roll = rng.int(10);
  if (roll === 0) place.list.splice(place.index, 1);
  else if (roll === 1) place.list.splice(place.index, 0, structuredClone(f));
  else if (roll === 2) {
    const donor = rng.pick(all);
    place.list.splice(rng.int(place.list.length + 1), 0, structuredClone(donor.list[donor.index] as WireField));
  } else if (roll === 3 && place.list.length > 1) {
    const other = rng.int(place.list.length);
    [place.list[place.index], place.list[other]] = [place.list[other] as WireField, f];
  } else if (f.wire === 0) {
    const v = f.varint ?? 0n;
    f.varint = rng.chance(0.7) ? rng.pick(INTERESTING_U64) : asU64(v + BigInt(rng.pick([-2, -1, 1, 2, 1000])));
  } else if (f.wire === 5 || f.wire === 1) {
    const out = new Uint8Array(f.wire === 5 ? 4 : 8);
    const view = new DataView(out.buffer);
    if (rng.chance(0.6)) {
      const value = rng.pick(INTERESTING_FLOATS);
      if (f.wire === 5) view.setFloat32(0, value, true);
      else view.setFloat64(0, value, true);
    } else view.setUint32(0, rng.pick(INTERESTING_INTS) >>> 0, true);
    f.bytes = out;
  } else if (f.children && rng.chance(0.3)) {
    delete f.children;
    f.bytes = mutateBytes(f.bytes ?? new Uint8Array(0), rng);
  } else if (!f.children) {
    f.bytes = rng.chance(0.5) ? new TextEncoder().encode(rng.pick(INTERESTING_STRINGS)) : mutateBytes(f.bytes ?? new Uint8Array(0), rng);
  } else {
    // a message: mutate inside it (its fields are places too; pick again among them)
    const inner = places(f.children);
    const target = rng.pick(inner);
    target.list.splice(target.index, 1);
  }
  return encodeWire(tree);
}

/** Removals of one field at a time, outermost first: the shrinking of a failing protobuf input. */
export function* shrinkWire(bytes: Uint8Array): Iterable<Uint8Array> {
  const tree = parseWire(bytes);
  if (!tree) return;
  const count = places(tree).length;
  for (let i = 0; i < count; i++) {
    const copy = structuredClone(tree);
    const place = places(copy)[i] as Place;
    place.list.splice(place.index, 1);
    yield encodeWire(copy);
  }
}
