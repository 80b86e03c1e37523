import { describe, expect, it } from 'vitest';
import { wasm } from '../wasm.js';
import { prefault, shareOf } from './prefault.js';

describe('prefault', () => {
  it('splits a range into whole pages per worker, in order, covering it once', () => {
    const range = { offset: 64, bytes: 10 * 4096 + 100 };
    const shares = [0, 1, 2].map((i) => shareOf(range, i, 3));
    expect(shares).toEqual([
      [64, 3 * 4096],
      [64 + 3 * 4096, 4 * 4096],
      [64 + 7 * 4096, 3 * 4096 + 100],
    ]);
    // more workers than pages: some get none
    expect([0, 1, 2].map((i) => shareOf({ offset: 0, bytes: 4096 }, i, 3))).toEqual([undefined, undefined, [0, 4096]]);
  });

  it('touches each page without changing the memory', () => {
    const memory = new wasm.Memory({ initial: 2, maximum: 2, shared: true });
    const bytes = new Uint8Array(memory.buffer);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) & 255;
    const before = bytes.slice();
    prefault(memory, 100, 100_000);
    prefault(memory, 130_000, 10_000); // past the end: clipped
    expect(Buffer.compare(bytes, before)).toBe(0);
  });
});
