/** Slicing-by-8 tables: TABLES[k][n] is the CRC of byte n followed by k zero bytes. */
const TABLES = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  const t0 = tables[0] as Uint32Array;
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  for (let k = 1; k < 8; k++) {
    const prev = tables[k - 1] as Uint32Array;
    const next = tables[k] as Uint32Array;
    for (let n = 0; n < 256; n++) next[n] = ((prev[n] as number) >>> 8) ^ (t0[(prev[n] as number) & 0xff] as number);
  }
  return tables;
})();

type Crc32Function = (bytes: Uint8Array) => number;

/** zlib's native crc32 where the runtime has it (Node ≥ 20.16), several times faster than JS. */
const native: Crc32Function | undefined = (() => {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    const zlib = host?.getBuiltinModule?.('node:zlib') as { crc32?: Crc32Function } | undefined;
    const fn = zlib?.crc32;
    // the check value of the CRC-32 catalogue ("123456789" → 0xcbf43926) guards against a different CRC
    return typeof fn === 'function' && fn(new TextEncoder().encode('123456789')) >>> 0 === 0xcbf43926 ? fn : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * CRC-32 (IEEE 802.3, as zlib's crc32) of `bytes`: the checksum covers the whole model body,
 * weights included, so it is on the load path. Uses the runtime's zlib when present, else
 * slicing-by-8 in JS (browsers).
 */
export function crc32(bytes: Uint8Array): number {
  return native ? native(bytes) >>> 0 : crc32Portable(bytes);
}

/** The portable CRC-32, eight bytes per step (slicing-by-8). */
export function crc32Portable(bytes: Uint8Array): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
  ];
  let crc = 0xffffffff;
  let i = 0;
  const end8 = bytes.length - (bytes.length % 8);
  for (; i < end8; i += 8) {
    const a =
      (crc ^
        ((bytes[i] as number) | ((bytes[i + 1] as number) << 8) | ((bytes[i + 2] as number) << 16) | ((bytes[i + 3] as number) << 24))) >>>
      0;
    const b =
      (bytes[i + 4] as number) | ((bytes[i + 5] as number) << 8) | ((bytes[i + 6] as number) << 16) | ((bytes[i + 7] as number) << 24);
    crc =
      (t7[a & 0xff] as number) ^
      (t6[(a >>> 8) & 0xff] as number) ^
      (t5[(a >>> 16) & 0xff] as number) ^
      (t4[a >>> 24] as number) ^
      (t3[b & 0xff] as number) ^
      (t2[(b >>> 8) & 0xff] as number) ^
      (t1[(b >>> 16) & 0xff] as number) ^
      (t0[b >>> 24] as number);
  }
  for (; i < bytes.length; i++) crc = (t0[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
