import type { Rng } from '../rng.js';

/** Values at the edges of integer types, where length and index arithmetic breaks. */
export const INTERESTING_INTS: readonly number[] = [
  0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 1023, 1024, 4095, 4096, 32767, 32768, 65535, 65536, 0x7fffffff,
  0x80000000, 0xffffffff, -1, -2, -128, -129, -32768, -65536, -0x80000000,
];

const MAX_GROWTH = 4096;

/**
 * One raw mutation of `bytes` (returns a new array): flip bits, set bytes or 16/32-bit little-endian
 * words to edge values, delete, duplicate or insert a chunk, truncate, or copy a chunk over another.
 */
export function mutateBytes(bytes: Uint8Array, rng: Rng): Uint8Array {
  if (bytes.length === 0) return Uint8Array.from({ length: 1 + rng.int(16) }, () => rng.int(256));
  const at = rng.int(bytes.length);
  const chunk = (): number => 1 + rng.int(Math.min(64, bytes.length - at));
  switch (rng.int(9)) {
    case 0: {
      const out = bytes.slice();
      out[at] = (out[at] as number) ^ (1 << rng.int(8));
      return out;
    }
    case 1: {
      const out = bytes.slice();
      out[at] = rng.pick([0, 1, 0x7f, 0x80, 0xff, rng.int(256)]);
      return out;
    }
    case 2:
    case 3: {
      const out = bytes.slice();
      const width = rng.chance(0.5) ? 4 : 2;
      const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
      const p = Math.min(at, Math.max(0, out.length - width));
      if (out.length < width) return out;
      const v = rng.pick(INTERESTING_INTS);
      if (width === 4) view.setUint32(p, v >>> 0, true);
      else view.setUint16(p, v & 0xffff, true);
      return out;
    }
    case 4: {
      const n = chunk();
      return concat(bytes.subarray(0, at), bytes.subarray(at + n));
    }
    case 5: {
      const n = Math.min(chunk(), MAX_GROWTH);
      return concat(bytes.subarray(0, at + n), bytes.subarray(at, at + n), bytes.subarray(at + n));
    }
    case 6: {
      const n = 1 + rng.int(32);
      return concat(
        bytes.subarray(0, at),
        Uint8Array.from({ length: n }, () => rng.int(256)),
        bytes.subarray(at),
      );
    }
    case 7:
      return bytes.slice(0, at);
    default: {
      const out = bytes.slice();
      const n = chunk();
      const from = rng.int(bytes.length);
      out.set(bytes.subarray(from, Math.min(bytes.length, from + n)), at);
      return out;
    }
  }
}

export function concat(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Byte-chunk removals, largest first: the default shrinking of a failing input. */
export function* shrinkBytes(bytes: Uint8Array): Iterable<Uint8Array> {
  for (let size = bytes.length >> 1; size >= 1; size >>= 1) {
    for (let at = 0; at + size <= bytes.length; at += size) yield concat(bytes.subarray(0, at), bytes.subarray(at + size));
  }
}
