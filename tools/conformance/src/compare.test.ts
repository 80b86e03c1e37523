import { createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { compareValues } from './compare.js';

describe('compareValues', () => {
  const f = (...v: number[]) => createTensor('float32', [v.length], Float32Array.from(v));
  it('applies rtol/atol, NaN equality and exact integers', () => {
    expect(compareValues(f(1, Number.NaN), f(1.0005, Number.NaN))).toBeUndefined();
    expect(compareValues(f(1), f(1.01))).toMatch(/value at 0/);
    expect(compareValues(createTensor('int32', [1], Int32Array.of(3)), createTensor('int32', [1], Int32Array.of(4)))).toMatch(/expected 4/);
    expect(compareValues(f(1, 2), createTensor('float32', [1, 2], Float32Array.of(1, 2)))).toMatch(/shape/);
    expect(compareValues(createTensor('float64', [1], Float64Array.of(1)), f(1))).toMatch(/dtype/);
  });
  it('compares sequences and optionals element by element', () => {
    const seq = (...items: ReturnType<typeof f>[]) => ({ kind: 'sequence' as const, elementType: 'float32' as const, items });
    expect(compareValues(seq(f(1), f(2)), seq(f(1), f(2)))).toBeUndefined();
    expect(compareValues(seq(f(1)), seq(f(1), f(2)))).toMatch(/length/);
    expect(compareValues({ kind: 'optional', value: undefined }, { kind: 'optional', value: undefined })).toBeUndefined();
    expect(compareValues(f(1), { kind: 'optional', value: f(1) })).toBeUndefined();
    expect(compareValues(f(1), { kind: 'optional', value: undefined })).toMatch(/empty optional/);
  });
});
