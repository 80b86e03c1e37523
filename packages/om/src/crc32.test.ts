import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, crc32Portable } from './crc32.js';

describe('crc32', () => {
  for (const [name, fn] of [
    ['crc32', crc32],
    ['the portable JS crc32', crc32Portable],
  ] as const)
    it(`${name} matches zlib on every length around the 8-byte steps and on known vectors`, () => {
      expect(fn(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
      expect(fn(new Uint8Array(0))).toBe(0);
      const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 131 + 7) & 0xff);
      for (let n = 0; n < 40; n++) expect(fn(bytes.subarray(0, n))).toBe(zlib.crc32(bytes.subarray(0, n)));
      expect(fn(bytes.subarray(3))).toBe(zlib.crc32(bytes.subarray(3)));
    });
});
