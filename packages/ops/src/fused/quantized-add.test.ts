// tsge::QuantizedAdd inference: broadcast shapes, and coded refusals of attributes whose sums would
// leave int32 (the SIMD kernel's lanes) or whose shift or zero point is out of range.
import { type AttrMap, type ValueInfo, InferenceError, attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { inferOnValues } from '../common/tensor-harness.js';
import { quantizedAddDefinition } from './quantized-add.js';

const u8 = (...shape: number[]): ValueInfo => ({ dtype: 'uint8', shape });
const attrs = (o: { am?: number; bm?: number; bias?: number; shift?: number; zp?: number } = {}): AttrMap =>
  new Map([
    ['a_multiplier', attr.int(o.am ?? 1948293)],
    ['b_multiplier', attr.int(o.bm ?? 1338520)],
    ['bias', attr.int(o.bias ?? 2 ** 20 - 1948293 * 136 - 1338520 * 119)],
    ['shift', attr.int(o.shift ?? 21)],
    ['zero_point', attr.int(o.zp ?? 133)],
  ]);

function rejects(a: AttrMap, message: RegExp): void {
  let error: unknown;
  try {
    inferOnValues(quantizedAddDefinition, [u8(1, 4), u8(1, 4)], { attrs: a, outputCount: 1 });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InferenceError);
  expect((error as InferenceError).code).toBe('TSGE-E4001');
  expect((error as Error).message).toMatch(message);
}

describe('tsge::QuantizedAdd inference', () => {
  it('broadcasts a and b, keeping their type', () => {
    const [y] = inferOnValues(quantizedAddDefinition, [u8(1, 8, 8, 3), u8(3)], { attrs: attrs(), outputCount: 1 });
    expect(y).toMatchObject({ dtype: 'uint8', shape: [1, 8, 8, 3] });
  });
  it('refuses out-of-range shifts, multipliers and zero points, and sums beyond int32', () => {
    rejects(attrs({ shift: 32 }), /shift 32/);
    rejects(attrs({ am: 2 ** 23 }), /a_multiplier/);
    rejects(attrs({ zp: 256 }), /zero_point 256/);
    rejects(attrs({ bias: 2 ** 31 - 1 }), /leave int32/);
  });
});
