import { attr, float16ToNumber } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { info, infer, run, tensor, values } from './test-helpers.fixture.js';

describe('binary arithmetic', () => {
  it('adds with broadcasting over rows and columns', () => {
    const [y] = run('Add', [tensor('float32', [2, 3], [1, 2, 3, 4, 5, 6]), tensor('float32', [3], [10, 20, 30])]);
    expect(y!.dims).toEqual([2, 3]);
    expect(values(y!)).toEqual([11, 22, 33, 14, 25, 36]);
    const [z] = run('Sub', [tensor('int32', [2, 1], [10, 20]), tensor('int32', [1, 3], [1, 2, 3])]);
    expect(values(z!)).toEqual([9, 8, 7, 19, 18, 17]);
  });
  it('handles scalars, empty tensors and float16', () => {
    expect(values(run('Mul', [tensor('float32', [], [3]), tensor('float32', [2], [2, 4])])[0]!)).toEqual([6, 12]);
    expect(run('Mul', [tensor('float32', [0, 3], []), tensor('float32', [3], [1, 2, 3])])[0]!.dims).toEqual([0, 3]);
    const [h] = run('Add', [tensor('float16', [2], [1.5, 2]), tensor('float16', [2], [0.25, -4])]);
    expect(Array.from(h!.data as Uint16Array, float16ToNumber)).toEqual([1.75, -2]);
  });
  it('divides integers with truncation and int64 exactly', () => {
    expect(values(run('Div', [tensor('int32', [3], [7, -7, 1]), tensor('int32', [3], [2, 2, 3])])[0]!)).toEqual([3, -3, 0]);
    const [big] = run('Div', [tensor('int64', [2], [-7, 9007199254740993n as unknown as number]), tensor('int64', [2], [2, 1])]);
    expect(Array.from(big!.data as BigInt64Array)).toEqual([-3n, 9007199254740993n]);
  });
  it('computes Mod with floor and fmod semantics', () => {
    const a = tensor('int32', [4], [-4, 7, 5, -3]);
    const b = tensor('int32', [4], [3, -3, 2, -2]);
    expect(values(run('Mod', [a, b])[0]!)).toEqual([2, -2, 1, -1]);
    expect(values(run('Mod', [a, b], { fmod: attr.int(1) })[0]!)).toEqual([-1, 1, 1, -1]);
  });
  it('raises to mixed-type powers', () => {
    expect(values(run('Pow', [tensor('int32', [2], [2, 3]), tensor('float32', [2], [3, 2])])[0]!)).toEqual([8, 9]);
    expect(values(run('Pow', [tensor('int64', [2], [2, 3]), tensor('int64', [2], [10, 0])])[0]!)).toEqual([1024, 1]);
  });
  it('aligns B at axis under legacy broadcast and wraps int64 powers', () => {
    const legacy = { broadcast: attr.int(1), axis: attr.int(0) };
    const [y] = run('Add', [tensor('float32', [2, 3], [1, 2, 3, 4, 5, 6]), tensor('float32', [2], [10, 20])], legacy);
    expect(values(y!)).toEqual([11, 12, 13, 24, 25, 26]);
    expect(
      infer('Mul', [info('float32', [2, 3, 4]), info('float32', [3])], { broadcast: attr.int(1), axis: attr.int(1) })[0]!.shape,
    ).toEqual([2, 3, 4]);
    const [p] = run('Pow', [tensor('int64', [1], [3]), tensor('int64', [1], [2 ** 40])]);
    expect(typeof (p!.data as BigInt64Array)[0]).toBe('bigint');
  });
  it('reports bad inputs as kernel errors, not TypeErrors', () => {
    expect(() => run('Add', [tensor('float32', [2], [1, 2]), tensor('float32', [3], [1, 2, 3])])).toThrow(/TSGE-E4003.*broadcast/);
    expect(() => run('Add', [tensor('float32', [2], [1, 2])])).toThrow(/TSGE-E4003.*input 1 is required/);
    expect(() => run('BitShift', [tensor('uint8', [1], [1]), tensor('uint8', [1], [1])], { direction: attr.string('UP') })).toThrow(
      /TSGE-E4003/,
    );
  });
  it('infers broadcast shapes with symbols and rejects conflicts', () => {
    expect(infer('Add', [info('float32', ['N', 3]), info('float32', [1, 3])])[0]!.shape).toEqual(['N', 3]);
    expect(() => infer('Add', [info('float32', [2, 3]), info('float32', [4])])).toThrow(/broadcast/);
  });
});

describe('comparison, logic and bitwise', () => {
  it('compares numbers, int64 and strings', () => {
    expect(values(run('Less', [tensor('float32', [3], [1, 2, 3]), tensor('float32', [], [2])])[0]!)).toEqual([1, 0, 0]);
    expect(values(run('GreaterOrEqual', [tensor('int64', [2], [5, 1]), tensor('int64', [2], [5, 2])])[0]!)).toEqual([1, 0]);
    expect(values(run('Equal', [tensor('string', [2], ['a', 'b']), tensor('string', [1], ['b'])])[0]!)).toEqual([0, 1]);
    expect(infer('Equal', [info('int32', [2]), info('int32', [2])])[0]!.dtype).toBe('bool');
  });
  it('applies And/Or/Xor/Not', () => {
    const a = tensor('bool', [4], [1, 1, 0, 0]);
    const b = tensor('bool', [4], [1, 0, 1, 0]);
    expect(values(run('And', [a, b])[0]!)).toEqual([1, 0, 0, 0]);
    expect(values(run('Or', [a, b])[0]!)).toEqual([1, 1, 1, 0]);
    expect(values(run('Xor', [a, b])[0]!)).toEqual([0, 1, 1, 0]);
    expect(values(run('Not', [a])[0]!)).toEqual([0, 0, 1, 1]);
  });
  it('shifts and masks bits with wrap-around', () => {
    const left = run('BitShift', [tensor('uint8', [2], [16, 200]), tensor('uint8', [2], [1, 1])], { direction: attr.string('LEFT') });
    expect(values(left[0]!)).toEqual([32, 144]);
    const right = run('BitShift', [tensor('uint64', [1], [256]), tensor('uint64', [1], [4])], { direction: attr.string('RIGHT') });
    expect(values(right[0]!)).toEqual([16]);
    expect(values(run('BitwiseAnd', [tensor('int32', [2], [12, -1]), tensor('int32', [2], [10, 5])])[0]!)).toEqual([8, 5]);
    expect(values(run('BitwiseNot', [tensor('uint8', [2], [0, 255])])[0]!)).toEqual([255, 0]);
  });
  it('selects with Where across three broadcast inputs', () => {
    const [y] = run('Where', [tensor('bool', [2, 1], [1, 0]), tensor('string', [2], ['a', 'b']), tensor('string', [], ['z'])]);
    expect(y!.dims).toEqual([2, 2]);
    expect(values(y!)).toEqual(['a', 'b', 'z', 'z']);
  });
});

describe('variadic and unary', () => {
  it('sums, averages and takes max/min with broadcasting', () => {
    const a = tensor('float32', [3], [1, 2, 3]);
    const b = tensor('float32', [1], [4]);
    expect(values(run('Sum', [a, b, b])[0]!)).toEqual([9, 10, 11]);
    expect(values(run('Mean', [a, b])[0]!)).toEqual([2.5, 3, 3.5]);
    expect(values(run('Max', [tensor('int64', [2], [1, 9]), tensor('int64', [2], [5, 2])])[0]!)).toEqual([5, 9]);
    expect(values(run('Min', [a])[0]!)).toEqual([1, 2, 3]);
  });
  it('rounds half to even and computes erf/sign/abs', () => {
    expect(values(run('Round', [tensor('float32', [6], [0.5, 1.5, 2.5, -0.5, -1.5, 2.4])])[0]!)).toEqual([0, 2, 2, -0, -2, 2]);
    const erf = values(run('Erf', [tensor('float64', [3], [0, 0.5, -2])])[0]!) as number[];
    expect(erf[1]).toBeCloseTo(0.5204998778, 6);
    expect(erf[2]).toBeCloseTo(-0.995322265, 6);
    expect(values(run('Sign', [tensor('int64', [3], [-5, 0, 7])])[0]!)).toEqual([-1, 0, 1]);
    expect(values(run('Abs', [tensor('int8', [2], [-128, -3])])[0]!)).toEqual([-128, 3]);
  });
  it('detects NaN and selected infinities', () => {
    const x = tensor('float32', [3], [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
    expect(values(run('IsNaN', [x])[0]!)).toEqual([1, 0, 0]);
    expect(values(run('IsInf', [x], { detect_negative: attr.int(0) })[0]!)).toEqual([0, 1, 0]);
  });
});
