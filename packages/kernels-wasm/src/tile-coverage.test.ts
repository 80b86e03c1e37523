import { describe, expect, it } from 'vitest';
import { tileCoverage } from './tile-coverage.js';

describe('tileCoverage', () => {
  it('accepts tiles that cover the box once, in any order and shape', () => {
    expect(
      tileCoverage(
        [10],
        [
          [5, 10],
          [0, 5],
        ],
      ),
    ).toBeUndefined();
    expect(
      tileCoverage(
        [4, 6],
        [
          [0, 4, 0, 2],
          [0, 2, 2, 6],
          [2, 4, 2, 6],
        ],
      ),
    ).toBeUndefined();
    expect(
      tileCoverage(
        [2, 3, 4],
        [
          [0, 2, 0, 3, 0, 1],
          [0, 1, 0, 3, 1, 4],
          [1, 2, 0, 3, 1, 4],
        ],
      ),
    ).toBeUndefined();
  });

  it('names a gap, an overlap, a tile outside the box and a malformed tile', () => {
    expect(
      tileCoverage(
        [10],
        [
          [0, 4],
          [5, 10],
        ],
      ),
    ).toMatch(/uncovered/);
    expect(
      tileCoverage(
        [4, 6],
        [
          [0, 4, 0, 3],
          [1, 2, 2, 6],
          [0, 4, 3, 6],
        ],
      ),
    ).toMatch(/overlap/);
    expect(tileCoverage([10], [[0, 11]])).toMatch(/outside/);
    expect(
      tileCoverage(
        [10],
        [
          [3, 3],
          [0, 10],
        ],
      ),
    ).toMatch(/outside/);
    expect(tileCoverage([10], [[0.5, 10]])).toMatch(/outside/);
    expect(tileCoverage([4, 6], [[0, 4]])).toMatch(/4 ints/);
    expect(tileCoverage([10], [])).toMatch(/uncovered/);
  });
});
