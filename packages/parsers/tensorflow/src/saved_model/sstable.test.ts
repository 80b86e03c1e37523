import { describe, expect, it } from 'vitest';
import { TfProblem } from '../internal/problem.js';
import { crc32c, maskCrc } from './crc32c.js';
import { readTable } from './sstable.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}
const u32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];

/** A block as LevelDB writes one: keys prefix-compressed against the previous, a restart every `interval`. */
function block(entries: [string, Uint8Array][], interval: number): number[] {
  const out: number[] = [];
  const restarts: number[] = [];
  let previous = new Uint8Array(0);
  entries.forEach(([k, value], i) => {
    const key = enc.encode(k);
    let shared = 0;
    if (i % interval === 0) restarts.push(out.length);
    else while (shared < previous.length && shared < key.length && previous[shared] === key[shared]) shared++;
    out.push(...varint(shared), ...varint(key.length - shared), ...varint(value.length), ...key.subarray(shared), ...value);
    previous = key;
  });
  for (const r of restarts) out.push(...u32(r));
  out.push(...u32(restarts.length));
  return out;
}

/** A table of data blocks of `perBlock` entries each; `compression` marks every block's type byte. */
function table(entries: [string, Uint8Array][], perBlock: number, compression = 0): Uint8Array {
  const file: number[] = [];
  const index: [string, Uint8Array][] = [];
  const put = (contents: number[]) => {
    const offset = file.length;
    const withType = [...contents, compression];
    file.push(...withType, ...u32(maskCrc(crc32c(Uint8Array.from(withType)))));
    return { offset, size: contents.length };
  };
  for (let i = 0; i < entries.length; i += perBlock) {
    const chunk = entries.slice(i, i + perBlock);
    const h = put(block(chunk, 2));
    index.push([(chunk[chunk.length - 1] as [string, Uint8Array])[0], Uint8Array.from([...varint(h.offset), ...varint(h.size)])]);
  }
  compression = 0;
  const meta = put(block([], 1));
  const ix = put(block(index, 1));
  const footer = [...varint(meta.offset), ...varint(meta.size), ...varint(ix.offset), ...varint(ix.size)];
  while (footer.length < 40) footer.push(0);
  footer.push(0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb);
  file.push(...footer);
  return Uint8Array.from(file);
}

const ENTRIES: [string, Uint8Array][] = Array.from({ length: 37 }, (_, i) => [
  `layer_${String(i).padStart(3, '0')}/kernel/.ATTRIBUTES/VARIABLE_VALUE`,
  enc.encode(`value ${i}`.repeat(1 + (i % 3))),
]);

function problemOf(fn: () => unknown): TfProblem {
  try {
    fn();
  } catch (error) {
    if (error instanceof TfProblem) return error;
    throw error;
  }
  throw new Error('no problem raised');
}

describe('LevelDB table reader', () => {
  it('checks crc32c against the standard check value', () => {
    expect(crc32c(enc.encode('123456789'))).toBe(0xe3069283);
  });

  it('reads prefix-compressed keys across restart points and several data blocks', () => {
    const entries = readTable(table(ENTRIES, 5), 'test.index');
    expect(entries.map((e) => dec.decode(e.key))).toEqual(ENTRIES.map(([k]) => k));
    expect(entries.map((e) => dec.decode(e.value))).toEqual(ENTRIES.map(([, v]) => dec.decode(v)));
  });

  it('refuses compressed blocks with their compression named', () => {
    const p = problemOf(() => readTable(table(ENTRIES, 5, 1), 'test.index'));
    expect(p.code).toBe('TSGE-E3111');
    expect(String(p.args.compression)).toContain('snappy');
  });

  it('names the file for a bad magic, a short file, a flipped byte and an out-of-range handle', () => {
    const good = table(ENTRIES, 5);
    const noMagic = good.slice();
    noMagic[noMagic.length - 1] = 0;
    const flipped = good.slice();
    flipped[3] = (flipped[3] as number) ^ 1;
    const farHandle = good.slice();
    // the index handle's offset varint, pointed past the end
    const footer = farHandle.length - 48;
    farHandle.set([0xff, 0xff, 0x03, 0x01, 0xff, 0xff, 0x03, 0x01], footer);
    for (const bytes of [noMagic, good.subarray(0, 30), flipped, farHandle]) {
      const p = problemOf(() => readTable(bytes, 'variables/variables.index'));
      expect(p.code).toBe('TSGE-E3110');
      expect(String(p.args.reason)).toContain('variables/variables.index');
    }
  });

  it('never reads past a block, whatever bytes it holds', () => {
    const good = table(ENTRIES, 5);
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 500; trial++) {
      const bytes = good.slice();
      for (let k = 0; k < 3; k++) bytes[Math.floor(random() * (bytes.length - 8))] = Math.floor(random() * 256);
      try {
        readTable(bytes, 't');
      } catch (error) {
        expect(error).toBeInstanceOf(TfProblem);
      }
    }
  });
});
