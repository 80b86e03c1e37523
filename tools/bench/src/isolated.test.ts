import { describe, expect, it } from 'vitest';
import { ratioSpread } from './isolated.js';

describe('ratioSpread', () => {
  it('takes the ratio per round, then its median and range', () => {
    // round medians of two runtimes: per-round ratios 0.5, 2, 1
    expect(ratioSpread([1, 4, 3], [2, 2, 3])).toEqual({ median: 1, min: 0.5, max: 2 });
  });
  it('refuses rounds that do not pair up', () => {
    expect(ratioSpread([1, 2], [1])).toBeUndefined();
    expect(ratioSpread([], [])).toBeUndefined();
    expect(ratioSpread(undefined, [1])).toBeUndefined();
  });
});
