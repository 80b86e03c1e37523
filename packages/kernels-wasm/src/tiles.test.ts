import { describe, expect, it } from 'vitest';
import { splitRange } from './tiles.js';

describe('splitRange', () => {
  it('covers the range with granule-aligned pieces', () => {
    const ranges = splitRange(100, 2, 4, 1e6);
    expect(ranges[0]?.[0]).toBe(0);
    expect(ranges[ranges.length - 1]?.[1]).toBe(100);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]?.[0]).toBe(ranges[i - 1]?.[1]);
    for (const [a] of ranges) expect(a % 4).toBe(0);
    expect(ranges.length).toBeGreaterThan(1);
    expect(ranges.length).toBeLessThanOrEqual(8);
  });
  it('keeps small work in one piece and one thread in one piece', () => {
    expect(splitRange(100, 2, 1, 10)).toEqual([[0, 100]]);
    expect(splitRange(1000, 1, 1, 1e6)).toEqual([[0, 1000]]);
  });
});
