import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { quantizedAddKernel } from './quantized-add.js';
import { runOp, tensorOf, values } from './test-support.fixture.js';

// hand-computed: floor((bias + a·am + b·bm) / 2^shift) + zero_point, saturated
describe('tsge::QuantizedAdd', () => {
  const attrs = (am: number, bm: number, bias: number, shift: number, zp: number) => ({
    a_multiplier: attr.int(am),
    b_multiplier: attr.int(bm),
    bias: attr.int(bias),
    shift: attr.int(shift),
    zero_point: attr.int(zp),
  });
  it('floors the shifted sum (also below zero) and saturates to uint8', () => {
    const a = tensorOf('uint8', [4], [0, 10, 200, 255]);
    const b = tensorOf('uint8', [4], [0, 3, 100, 255]);
    // floor((−20 + 2a + b) / 4) + 1: (0, 0) → −5 + 1 → 0 (saturated); (10, 3) → 0 + 1; (200, 100) → 120 + 1; (255, 255) → 186 + 1
    const [y] = runOp([quantizedAddKernel], 'QuantizedAdd', [a, b], attrs(2, 1, -20, 2, 1));
    expect(values(y)).toEqual([0, 1, 121, 187]);
  });
  it('broadcasts and handles int8 with a negative multiplier', () => {
    const a = tensorOf('int8', [2, 2], [-128, -1, 0, 127]);
    const b = tensorOf('int8', [2], [10, -10]);
    // floor((2 + 4a − 2b) / 4) − 3, b along the last axis
    const [y] = runOp([quantizedAddKernel], 'QuantizedAdd', [a, b], attrs(4, -2, 2, 2, -3));
    expect(y?.type).toBe('int8');
    // (−128, 10): −530 >> 2 = −133 → −128 (saturated); (−1, −10): 18 → 1; (0, 10): −18 → −8; (127, −10): 530 → 129 → 127
    expect(values(y)).toEqual([-128, 1, -8, 127]);
  });
  it('refuses mixed types', () => {
    expect(() =>
      runOp([quantizedAddKernel], 'QuantizedAdd', [tensorOf('uint8', [1], [1]), tensorOf('int8', [1], [1])], attrs(1, 1, 0, 0, 0)),
    ).toThrow(/uint8 and int8/);
  });
});
