import { attr, bfloat16ToNumber, float16ToNumber, numberToFloat16 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { encodeSmallFloat, smallFloatDecodeTable } from '../common/math-float8.js';
import { floatToString } from './cast.js';
import { info, infer, run, tensor, values } from './test-helpers.fixture.js';

describe('Cast', () => {
  it('converts floats to ints by truncation and to bool by non-zero', () => {
    const x = tensor('float32', [4], [1.9, -1.9, 0, Number.NaN]);
    expect(values(run('Cast', [x], { to: attr.int(6) })[0]!)).toEqual([1, -1, 0, 0]);
    expect(values(run('Cast', [x], { to: attr.dtype('bool') })[0]!)).toEqual([1, 1, 0, 1]);
    expect(values(run('Cast', [x], { to: attr.int(7) })[0]!)).toEqual([1, -1, 0, 0]);
    expect(run('Cast', [x], { to: attr.string('DOUBLE') })[0]!.type).toBe('float64');
  });
  it('widens integers and rounds int32 to float32 to nearest-even', () => {
    const u8 = tensor('uint8', [3], [0, 128, 255]);
    expect(values(run('Cast', [u8], { to: attr.dtype('float32') })[0]!)).toEqual([0, 128, 255]);
    expect(values(run('Cast', [u8], { to: attr.dtype('int16') })[0]!)).toEqual([0, 128, 255]);
    const i8 = tensor('int8', [3], [-128, -1, 127]);
    expect(values(run('Cast', [i8], { to: attr.dtype('int32') })[0]!)).toEqual([-128, -1, 127]);
    expect(values(run('Cast', [i8], { to: attr.dtype('float64') })[0]!)).toEqual([-128, -1, 127]);
    // 2^24 + 1 and 2^24 + 3 are halfway cases: ties go to the even neighbour
    const i32 = tensor('int32', [3], [16777217, 16777219, -2147483648]);
    expect(values(run('Cast', [i32], { to: attr.dtype('float32') })[0]!)).toEqual([16777216, 16777220, -2147483648]);
    const u32 = tensor('uint32', [1], [4294967295]);
    expect(values(run('Cast', [u32], { to: attr.dtype('float64') })[0]!)).toEqual([4294967295]);
  });
  it('rounds to float16 and bfloat16', () => {
    const x = tensor('float32', [2], [1.0009765625, 3.3]);
    const h = run('Cast', [x], { to: attr.dtype('float16') })[0]!;
    expect(Array.from(h.data as Uint16Array, float16ToNumber)).toEqual([1.0009765625, 3.30078125]);
    const b = run('Cast', [x], { to: attr.dtype('bfloat16') })[0]!;
    expect(Array.from(b.data as Uint16Array, bfloat16ToNumber)).toEqual([1, 3.296875]);
    const back = run('Cast', [h], { to: attr.dtype('float64') })[0]!;
    expect(values(back)).toEqual([1.0009765625, 3.30078125]);
    expect(numberToFloat16(1)).toBe(0x3c00);
  });
  it('parses and prints strings', () => {
    const s = tensor('string', [4], ['3.5', '-INF', 'nan', '1e2']);
    const f = values(run('Cast', [s], { to: attr.dtype('float32') })[0]!);
    expect(f[0]).toBe(3.5);
    expect(f[1]).toBe(Number.NEGATIVE_INFINITY);
    expect(Number.isNaN(f[2])).toBe(true);
    expect(f[3]).toBe(100);
    expect(values(run('Cast', [tensor('int64', [1], [42])], { to: attr.dtype('string') })[0]!)).toEqual(['42']);
    expect(floatToString(Math.fround(0.1), true)).toBe('0.1');
    expect(floatToString(1, true)).toBe('1.0');
    expect(floatToString(1e-5, false)).toBe('1e-05');
  });
  it('encodes float8 with saturation', () => {
    expect(smallFloatDecodeTable('float8e4m3fn')[0x7e]).toBe(448);
    expect(encodeSmallFloat('float8e4m3fn', 1000, true)).toBe(0x7e);
    expect(encodeSmallFloat('float8e4m3fn', 1000, false)).toBe(0x7f);
    expect(encodeSmallFloat('float8e5m2', 1e6, false)).toBe(0x7c);
    expect(encodeSmallFloat('float8e5m2', Number.POSITIVE_INFINITY, true)).toBe(0x7b);
    expect(encodeSmallFloat('float8e5m2', Number.NaN, true)).toBe(0x7e);
    expect(encodeSmallFloat('float8e4m3fnuz', -0, true)).toBe(0);
    expect(encodeSmallFloat('float4e2m1', 2.5, true)).toBe(0x4);
    expect(encodeSmallFloat('float4e2m1', -7, true)).toBe(0xf);
  });
  it('wraps int4 and casts like a target', () => {
    expect(values(run('Cast', [tensor('float32', [3], [9, -9, 2.5])], { to: attr.dtype('int4') })[0]!)).toEqual([-7, 7, 2]);
    const y = run('CastLike', [tensor('int32', [2], [1, 2]), tensor('float64', [0], [])])[0]!;
    expect(y.type).toBe('float64');
    expect(infer('CastLike', [info('int32', ['N']), info('float16', [1])])[0]).toEqual({ dtype: 'float16', shape: ['N'] });
  });
  it('reinterprets bits with BitCast', () => {
    const y = run('BitCast', [tensor('float32', [1], [1])], { to: attr.dtype('int32') })[0]!;
    expect(values(y)).toEqual([0x3f800000]);
    expect(() => infer('BitCast', [info('float32', [1])], { to: attr.dtype('int64') })).toThrow(/size/);
  });
});

describe('reductions', () => {
  const x = tensor('float32', [2, 3], [1, 2, 3, 4, 5, 6]);
  it('reduces over axes given as input, with keepdims and negative axes', () => {
    expect(values(run('ReduceSum', [x, tensor('int64', [1], [-1])])[0]!)).toEqual([6, 15]);
    const mean = run('ReduceMean', [x, tensor('int64', [1], [0])], { keepdims: attr.int(0) })[0]!;
    expect(mean.dims).toEqual([3]);
    expect(values(mean)).toEqual([2.5, 3.5, 4.5]);
    expect(values(run('ReduceMax', [x])[0]!)).toEqual([6]);
    expect(run('ReduceProd', [x])[0]!.dims).toEqual([1, 1]);
    expect(values(run('ReduceL2', [tensor('float32', [2], [3, 4])])[0]!)).toEqual([5]);
    const lse = values(run('ReduceLogSumExp', [tensor('float64', [2], [1000, 1000])])[0]!) as number[];
    expect(lse[0]).toBeCloseTo(1000 + Math.log(2), 9);
  });
  it('treats empty axes as all or as a no-op', () => {
    expect(values(run('ReduceSum', [x, tensor('int64', [0], [])], { noop_with_empty_axes: attr.int(1) })[0]!)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(values(run('ReduceSum', [tensor('float32', [0, 2], []), tensor('int64', [1], [0])])[0]!)).toEqual([0, 0]);
  });
  it('infers shapes with known and unknown axes', () => {
    const axes = tensor('int64', [1], [1]);
    expect(
      infer('ReduceSum', [info('float32', ['N', 3]), info('int64', [1])], { keepdims: attr.int(0) }, { inputValues: [undefined, axes] })[0]!
        .shape,
    ).toEqual(['N']);
    expect(infer('ReduceSum', [info('float32', ['N', 3]), info('int64', [1])], { keepdims: attr.int(0) })[0]!.shape).toEqual([-2]);
    expect(() =>
      infer('ReduceSum', [info('float32', [2]), info('int64', [1])], {}, { inputValues: [undefined, tensor('int64', [1], [3])] }),
    ).toThrow(/out of range/);
  });
  it('finds first or last arg max/min', () => {
    const t = tensor('int32', [2, 3], [1, 5, 5, 7, 0, 0]);
    expect(values(run('ArgMax', [t], { axis: attr.int(1) })[0]!)).toEqual([1, 0]);
    expect(values(run('ArgMax', [t], { axis: attr.int(1), select_last_index: attr.int(1) })[0]!)).toEqual([2, 0]);
    const min = run('ArgMin', [t], { axis: attr.int(-1), keepdims: attr.int(0), select_last_index: attr.int(1) })[0]!;
    expect(min.dims).toEqual([2]);
    expect(values(min)).toEqual([0, 2]);
  });
});

describe('MatMul and Gemm', () => {
  it('multiplies batched matrices with broadcasting and 1-D operands', () => {
    const a = tensor('float32', [2, 2, 3], [1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0]);
    const b = tensor('float32', [3, 1], [1, 1, 1]);
    const [y] = run('MatMul', [a, b]);
    expect(y!.dims).toEqual([2, 2, 1]);
    expect(values(y!)).toEqual([6, 15, 1, 1]);
    const v = run('MatMul', [tensor('float32', [3], [1, 2, 3]), tensor('float32', [3], [4, 5, 6])])[0]!;
    expect(v.dims).toEqual([]);
    expect(values(v)).toEqual([32]);
    expect(infer('MatMul', [info('float32', ['B', 4, 3]), info('float32', [3, 5])])[0]!.shape).toEqual(['B', 4, 5]);
    expect(() => infer('MatMul', [info('float32', [4, 3]), info('float32', [2, 5])])).toThrow(/inner/);
  });
  it('matches a direct triple loop for odd and even row counts', () => {
    for (const [m, k, n] of [
      [5, 7, 3],
      [4, 9, 6],
      [1, 3, 2],
    ] as const) {
      const a = Array.from({ length: m * k }, (_, i) => Math.fround(Math.sin(i)));
      const b = Array.from({ length: k * n }, (_, i) => Math.fround(Math.cos(i)));
      const y = values(run('MatMul', [tensor('float32', [m, k], a), tensor('float32', [k, n], b)])[0]!) as number[];
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let sum = 0;
          for (let p = 0; p < k; p++) sum += a[i * k + p]! * b[p * n + j]!;
          expect(y[i * n + j]).toBeCloseTo(sum, 5);
        }
      }
    }
  });
  it('applies Gemm transposes, alpha, beta and C broadcast', () => {
    const a = tensor('float32', [3, 2], [1, 4, 2, 5, 3, 6]);
    const b = tensor('float32', [2, 3], [1, 0, 0, 0, 1, 0]);
    const c = tensor('float32', [1], [10]);
    const [y] = run('Gemm', [a, b, c], { transA: attr.int(1), transB: attr.int(1), alpha: attr.float(2), beta: attr.float(0.5) });
    expect(y!.dims).toEqual([2, 2]);
    expect(values(y!)).toEqual([7, 9, 13, 15]);
  });
  it('multiplies integers with zero points', () => {
    const a = tensor('uint8', [2, 2], [11, 12, 13, 14]);
    const b = tensor('int8', [2, 1], [1, -1]);
    const [y] = run('MatMulInteger', [a, b, tensor('uint8', [], [10])]);
    expect(y!.type).toBe('int32');
    expect(values(y!)).toEqual([-1, -1]);
  });
});
