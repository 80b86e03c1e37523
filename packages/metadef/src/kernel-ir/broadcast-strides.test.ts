import { describe, expect, it } from 'vitest';
import { broadcastStrides, runStride } from './broadcast-strides.js';

describe('broadcastStrides', () => {
  it('reads dims right-aligned, 0 where broadcast', () => {
    expect(broadcastStrides([3, 1, 5], [2, 3, 4, 5])).toEqual([0, 5, 0, 1]);
    expect(broadcastStrides([], [2, 3])).toEqual([0, 0]);
    expect(broadcastStrides([2, 3], [2, 3])).toEqual([3, 1]);
  });

  it('refuses a dim that is not the output’s, a dynamic output dim against a static one, and a higher rank', () => {
    expect(broadcastStrides([4], [2, 3])).toBeUndefined();
    expect(broadcastStrides([3], [2, 'n'])).toBeUndefined();
    expect(broadcastStrides([1], [2, 'n'])).toEqual([0, 0]);
    expect(broadcastStrides([1, 2, 3], [2, 3])).toBeUndefined();
  });
});

describe('runStride', () => {
  it('is the stride of one run over a group of dims, 0 when broadcast over all of them', () => {
    // [N, C, H, W] read by a [C, H, W] input: H·W is one run of stride 1, C one of H·W
    const strides = broadcastStrides([3, 4, 5], [2, 3, 4, 5]) as number[];
    expect(runStride([2, 3, 4, 5], strides, 2, 4)).toBe(1);
    expect(runStride([2, 3, 4, 5], strides, 1, 2)).toBe(20);
    expect(runStride([2, 3, 4, 5], strides, 0, 1)).toBe(0);
    expect(runStride(['n', 3], [0, 1], 0, 1)).toBe(0);
  });

  it('refuses dims that are not one run, and stepping along a dynamic dim', () => {
    // a [C, 1, W] input over [C, H, W]: C and W do not form one run through H
    expect(runStride([3, 4, 5], [5, 0, 1], 0, 3)).toBeUndefined();
    expect(runStride(['n', 3], [3, 1], 0, 2)).toBeUndefined();
  });
});
