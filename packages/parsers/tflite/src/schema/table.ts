import { ByteBuffer } from 'flatbuffers';

/** A malformed flatbuffer: an offset or a length points outside the file. */
export class FlatbufferError extends Error {}

/**
 * A flatbuffers table with bounds-checked field access. The flatbuffers runtime trusts the
 * buffer (an out-of-range offset reads `undefined` as 0 and a corrupt vector length can make a
 * loop run for billions of steps), so every offset and length is checked against the file here.
 * Fields are addressed by their slot: the field's position in the schema's table, counting a
 * union as two slots (type and value), as flatc numbers them.
 */
export class Table {
  readonly bb: ByteBuffer;
  readonly pos: number;
  private readonly vtable: number;
  private readonly vtableSize: number;

  constructor(bb: ByteBuffer, pos: number) {
    const size = bb.capacity();
    if (pos < 0 || pos + 4 > size) throw new FlatbufferError(`table at ${pos} is outside the file`);
    this.bb = bb;
    this.pos = pos;
    this.vtable = pos - bb.readInt32(pos);
    if (this.vtable < 0 || this.vtable + 4 > size) throw new FlatbufferError(`vtable of table at ${pos} is outside the file`);
    this.vtableSize = bb.readUint16(this.vtable);
    if (this.vtableSize < 4 || this.vtable + this.vtableSize > size || this.vtableSize % 2) {
      throw new FlatbufferError(`vtable of table at ${pos} has a bad size ${this.vtableSize}`);
    }
  }

  /** Table root of a file (the first uint32 points at it). */
  static root(bytes: Uint8Array): Table {
    if (bytes.length < 8) throw new FlatbufferError(`${bytes.length} bytes is too short for a flatbuffer`);
    const bb = new ByteBuffer(bytes);
    return new Table(bb, bb.readUint32(0));
  }

  /** Absolute position of a field's value, or 0 when it is absent (the default applies). */
  private field(slot: number, width: number): number {
    const entry = 4 + 2 * slot;
    if (entry + 2 > this.vtableSize) return 0;
    const offset = this.bb.readUint16(this.vtable + entry);
    if (offset === 0) return 0;
    const at = this.pos + offset;
    if (at + width > this.bb.capacity()) throw new FlatbufferError(`field ${slot} of table at ${this.pos} is outside the file`);
    return at;
  }

  has(slot: number): boolean {
    return this.field(slot, 1) !== 0;
  }

  int8(slot: number, fallback = 0): number {
    const at = this.field(slot, 1);
    return at ? this.bb.readInt8(at) : fallback;
  }

  uint8(slot: number, fallback = 0): number {
    const at = this.field(slot, 1);
    return at ? this.bb.readUint8(at) : fallback;
  }

  bool(slot: number, fallback = false): boolean {
    const at = this.field(slot, 1);
    return at ? this.bb.readUint8(at) !== 0 : fallback;
  }

  int32(slot: number, fallback = 0): number {
    const at = this.field(slot, 4);
    return at ? this.bb.readInt32(at) : fallback;
  }

  uint32(slot: number, fallback = 0): number {
    const at = this.field(slot, 4);
    return at ? this.bb.readUint32(at) : fallback;
  }

  float32(slot: number, fallback = 0): number {
    const at = this.field(slot, 4);
    return at ? this.bb.readFloat32(at) : fallback;
  }

  /** A 64-bit integer as a number; values beyond 2^53 are refused. */
  int64(slot: number, fallback = 0): number {
    const at = this.field(slot, 8);
    return at ? checkedNumber(this.bb.readInt64(at)) : fallback;
  }

  private indirect(slot: number): number {
    const at = this.field(slot, 4);
    if (!at) return 0;
    const target = at + this.bb.readUint32(at);
    if (target + 4 > this.bb.capacity()) throw new FlatbufferError(`field ${slot} of table at ${this.pos} points outside the file`);
    return target;
  }

  table(slot: number): Table | undefined {
    const at = this.indirect(slot);
    return at ? new Table(this.bb, at) : undefined;
  }

  string(slot: number): string | undefined {
    const bytes = this.vectorBytes(slot, 1);
    return bytes ? new TextDecoder('utf-8', { fatal: false }).decode(bytes) : undefined;
  }

  /** Start and length of a vector of `elementSize`-byte elements, checked against the file. */
  private vector(slot: number, elementSize: number): { start: number; length: number } | undefined {
    const at = this.indirect(slot);
    if (!at) return undefined;
    const length = this.bb.readUint32(at);
    const start = at + 4;
    if (start + length * elementSize > this.bb.capacity()) {
      throw new FlatbufferError(`vector field ${slot} of table at ${this.pos} (${length} elements) runs past the end of the file`);
    }
    return { start, length };
  }

  /** The raw bytes of a vector, a view into the file (no copy). */
  vectorBytes(slot: number, elementSize: number): Uint8Array | undefined {
    const v = this.vector(slot, elementSize);
    return v ? this.bb.bytes().subarray(v.start, v.start + v.length * elementSize) : undefined;
  }

  int32s(slot: number): number[] | undefined {
    const v = this.vector(slot, 4);
    if (!v) return undefined;
    const out = new Array<number>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = this.bb.readInt32(v.start + 4 * i);
    return out;
  }

  float32s(slot: number): number[] | undefined {
    const v = this.vector(slot, 4);
    if (!v) return undefined;
    const out = new Array<number>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = this.bb.readFloat32(v.start + 4 * i);
    return out;
  }

  int64s(slot: number): number[] | undefined {
    const v = this.vector(slot, 8);
    if (!v) return undefined;
    const out = new Array<number>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = checkedNumber(this.bb.readInt64(v.start + 8 * i));
    return out;
  }

  tables(slot: number): Table[] {
    const v = this.vector(slot, 4);
    if (!v) return [];
    const out = new Array<Table>(v.length);
    for (let i = 0; i < v.length; i++) {
      const at = v.start + 4 * i;
      out[i] = new Table(this.bb, at + this.bb.readUint32(at));
    }
    return out;
  }
}

function checkedNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new FlatbufferError(`64-bit value ${value} is beyond 2^53`);
  }
  return Number(value);
}
