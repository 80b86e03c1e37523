// A MindIR attribute that decodes to `{ none: true }` (a None value) was taken for a tensor and
// reached the graph builder without dims ("shape is not iterable"; `pnpm fuzz --campaign mindir
// --seed 1 --case 525`, issue 11). Only a value with a dtype, dims and data is a tensor.
import { createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { attrTensor, isTensor } from './context.js';

describe('MindIR attribute values as tensors', () => {
  it('a None value is not a tensor, so a node using it as an input gets a coded error', () => {
    expect(isTensor({ none: true })).toBe(false);
    expect(attrTensor({ none: true })).toBeUndefined();
  });

  it('real tensors and number lists still are', () => {
    const t = createTensor('float32', [2], Float32Array.of(1, 2));
    expect(isTensor(t)).toBe(true);
    expect(attrTensor(t)).toBe(t);
    expect(attrTensor([1, 2, 3])?.dims).toEqual([3]);
  });
});
