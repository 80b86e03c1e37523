// Reader for LevelDB's table (SSTable) format, which TensorFlow's tensor bundle uses for
// `variables.index`: data blocks of prefix-compressed keys with restart points, an index block of
// block handles, and a 48-byte footer ending in a magic number. Every offset and length read from
// the file is checked against the file before it is used.
import { TfProblem } from '../internal/problem.js';
import { crc32c, maskCrc } from './crc32c.js';

const FOOTER_BYTES = 48;
// 0xdb4775248b80fb57, little-endian
const MAGIC = [0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb];
const TRAILER_BYTES = 5; // compression type + masked crc32c
const COMPRESSION: Readonly<Record<number, string>> = { 1: 'snappy', 2: 'zlib', 3: 'lz4', 4: 'zstd' };

export interface BlockHandle {
  readonly offset: number;
  readonly size: number;
}

/** One key/value of a table, in file order (keys are sorted by the writer). */
export interface TableEntry {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

/** A cursor over bytes that fails with a coded problem naming the file instead of reading past the end. */
class Cursor {
  pos: number;
  constructor(
    readonly bytes: Uint8Array,
    readonly end: number,
    readonly fail: (reason: string) => TfProblem,
    start = 0,
  ) {
    this.pos = start;
  }

  varint(what: string, max = Number.MAX_SAFE_INTEGER): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw this.fail(`${what} runs past the end of its block`);
      const b = this.bytes[this.pos++] as number;
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) {
        if (!Number.isSafeInteger(result) || result > max) throw this.fail(`${what} ${result} is out of range`);
        return result;
      }
      scale *= 128;
    }
    throw this.fail(`${what} is a varint longer than 10 bytes`);
  }

  take(length: number, what: string): Uint8Array {
    if (length > this.end - this.pos) throw this.fail(`${what} (${length} bytes) runs past the end of its block`);
    const out = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }
}

/** Reads every entry of a table held whole in `file`; `name` names it in problems. */
export function readTable(file: Uint8Array, name: string): TableEntry[] {
  const fail = (reason: string) => new TfProblem('TSGE-E3110', { reason: `${name}: ${reason}` });
  if (file.length < FOOTER_BYTES) throw fail(`${file.length} bytes is too short for a table footer (${FOOTER_BYTES} bytes)`);
  const footerStart = file.length - FOOTER_BYTES;
  for (let i = 0; i < 8; i++)
    if (file[file.length - 8 + i] !== MAGIC[i]) throw fail('the footer has no table magic number (not a LevelDB/TensorFlow table)');
  const footer = new Cursor(file, file.length - 8, fail, footerStart);
  const handle = (what: string): BlockHandle => {
    const offset = footer.varint(`${what} offset`);
    const size = footer.varint(`${what} size`);
    return { offset, size };
  };
  handle('metaindex handle'); // no meta blocks are read (filters only speed up lookups)
  const indexHandle = handle('index handle');
  const entries: TableEntry[] = [];
  for (const index of readBlock(file, indexHandle, footerStart, name, fail)) {
    const c = new Cursor(index.value, index.value.length, fail);
    const data = { offset: c.varint('data block offset'), size: c.varint('data block size') };
    entries.push(...readBlock(file, data, footerStart, name, fail));
  }
  return entries;
}

function readBlock(file: Uint8Array, handle: BlockHandle, limit: number, name: string, fail: (r: string) => TfProblem): TableEntry[] {
  if (handle.offset > limit || handle.size + TRAILER_BYTES > limit - handle.offset)
    throw fail(`block of ${handle.size} bytes at offset ${handle.offset} lies beyond the table's data (${limit} bytes)`);
  const contents = file.subarray(handle.offset, handle.offset + handle.size);
  const type = file[handle.offset + handle.size] as number;
  const stored = new DataView(file.buffer, file.byteOffset + handle.offset + handle.size + 1, 4).getUint32(0, true);
  const actual = maskCrc(crc32c(file.subarray(handle.offset, handle.offset + handle.size + 1)));
  if (stored !== actual) throw fail(`block at offset ${handle.offset} fails its crc32c check`);
  if (type !== 0) {
    throw new TfProblem('TSGE-E3111', {
      compression: `${COMPRESSION[type] ?? `unknown (${type})`} (in ${name}, block at ${handle.offset})`,
    });
  }
  return blockEntries(contents, fail);
}

/** The entries of one uncompressed block: keys share a prefix with the previous key. */
function blockEntries(block: Uint8Array, fail: (r: string) => TfProblem): TableEntry[] {
  if (block.length < 4) throw fail(`block of ${block.length} bytes has no restart count`);
  const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
  const restarts = view.getUint32(block.length - 4, true);
  if (restarts > (block.length - 4) / 4) throw fail(`block claims ${restarts} restart points in ${block.length} bytes`);
  const end = block.length - 4 - restarts * 4;
  const cursor = new Cursor(block, end, fail);
  const entries: TableEntry[] = [];
  let previous = new Uint8Array(0);
  while (cursor.pos < end) {
    const shared = cursor.varint('shared key length', previous.length);
    const unshared = cursor.varint('key length', end);
    const valueLength = cursor.varint('value length', end);
    const suffix = cursor.take(unshared, 'key');
    const key = new Uint8Array(shared + unshared);
    key.set(previous.subarray(0, shared));
    key.set(suffix, shared);
    entries.push({ key, value: cursor.take(valueLength, 'value') });
    previous = key;
  }
  return entries;
}
