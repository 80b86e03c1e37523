import { describe, expect, it } from 'vitest';
import { filterRowBands } from './depthwise-row-bands.js';

describe('filterRowBands', () => {
  it('gives each output row of a 5×5 filter over 2 rows its 2 filter rows', () => {
    // H 2, pads 2: row 0 reads filter rows 2..3, row 1 filter rows 1..2
    expect(filterRowBands(2, 2, 5, 1, 2)).toEqual([0, 1, 2, 4, 1, 2, 1, 3]);
  });

  it('merges the rows of a tall plane whose windows are inside into one full band', () => {
    // H 10, 3×3, pad 1, 10 output rows: the first and last lose a filter row
    expect(filterRowBands(10, 10, 3, 1, 1)).toEqual([0, 1, 1, 3, 1, 9, 0, 3, 9, 10, 0, 2]);
  });

  it('follows the row stride', () => {
    // H 6, 5×5, stride 2, pad 2: windows start at rows -2, 0, 2
    expect(filterRowBands(6, 3, 5, 2, 2)).toEqual([0, 1, 2, 5, 1, 2, 0, 5, 2, 3, 0, 4]);
  });

  it('marks rows whose windows lie wholly in the padding with an empty range', () => {
    // H 1, 3×3, pads 3 and 4: windows start at rows -3..2, of which only -2, -1 and 0 reach row 0
    expect(filterRowBands(1, 6, 3, 1, 3)).toEqual([0, 1, 3, 3, 1, 2, 2, 3, 2, 3, 1, 2, 3, 4, 0, 1, 4, 5, 0, 0, 5, 6, 0, -1]);
  });
});
