import { attr, bfloat16ToNumber, float16ToNumber, numberToBfloat16 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { encodeSmallFloat, smallFloatDecodeTable } from '../common/math-float8.js';
import { run, tensor, values } from './test-helpers.fixture.js';

const halves = (t: { data: unknown }) => Array.from(t.data as Uint16Array, float16ToNumber);

describe('dtype classes', () => {
  it('computes unary math and reductions on float16 and bfloat16', () => {
    expect(halves(run('Sqrt', [tensor('float16', [2], [4, 0.25])])[0]!)).toEqual([2, 0.5]);
    expect(halves(run('ReduceSum', [tensor('float16', [2, 2], [1, 2, 3, 4]), tensor('int64', [1], [1])])[0]!)).toEqual([3, 7]);
    const b = tensor('bfloat16', [2], []);
    (b.data as Uint16Array).set([numberToBfloat16(1.5), numberToBfloat16(-2)]);
    const y = run('Abs', [b])[0]!;
    expect(Array.from(y.data as Uint16Array, bfloat16ToNumber)).toEqual([1.5, 2]);
    expect(halves(run('Max', [tensor('float16', [2], [1, 5]), tensor('float16', [1], [3])])[0]!)).toEqual([3, 5]);
  });
  it('keeps 64-bit integers exact in bitwise, comparison, Where and variadic ops', () => {
    const big = 2n ** 62n + 1n;
    const a = tensor('uint64', [2], []);
    (a.data as BigUint64Array).set([big, 3n]);
    const b = tensor('uint64', [1], []);
    (b.data as BigUint64Array).set([big]);
    expect(Array.from(run('BitwiseXor', [a, b])[0]!.data as BigUint64Array)).toEqual([0n, big ^ 3n]);
    expect(values(run('Equal', [a, b])[0]!)).toEqual([1, 0]);
    const where = run('Where', [tensor('bool', [2], [0, 1]), a, b])[0]!;
    expect(Array.from(where.data as BigUint64Array)).toEqual([big, 3n]);
    const sum = run('Sum', [a, b])[0]!;
    expect(Array.from(sum.data as BigUint64Array)).toEqual([2n * big, big + 3n]);
  });
  it('reduces int64 exactly', () => {
    const x = tensor('int64', [2, 2], []);
    (x.data as BigInt64Array).set([2n ** 60n + 1n, 2n, -(2n ** 62n), 7n]);
    expect(Array.from(run('ReduceSum', [x, tensor('int64', [1], [1])])[0]!.data as BigInt64Array)).toEqual([
      2n ** 60n + 3n,
      7n - 2n ** 62n,
    ]);
    expect(Array.from(run('ReduceMax', [x, tensor('int64', [1], [0])], { keepdims: attr.int(0) })[0]!.data as BigInt64Array)).toEqual([
      2n ** 60n + 1n,
      7n,
    ]);
    expect(Array.from(run('ReduceMin', [x])[0]!.data as BigInt64Array)).toEqual([-(2n ** 62n)]);
    expect(Array.from(run('ReduceProd', [x, tensor('int64', [1], [0])])[0]!.data as BigInt64Array)).toEqual(
      [-(2n ** 62n) * (2n ** 60n + 1n), 14n].map((v) => BigInt.asIntN(64, v)),
    );
  });
  it('clips and accumulates integer tensors', () => {
    expect(values(run('Clip', [tensor('int64', [3], [-5, 0, 5]), tensor('int64', [], [-1]), tensor('int64', [], [1])])[0]!)).toEqual([
      -1, 0, 1,
    ]);
    expect(values(run('Clip', [tensor('uint8', [2], [3, 250]), undefined, tensor('uint8', [], [200])])[0]!)).toEqual([3, 200]);
    expect(values(run('CumSum', [tensor('int64', [3], [1, 2, 3]), tensor('int32', [], [0])])[0]!)).toEqual([1, 3, 6]);
    const big = tensor('int64', [2], []);
    (big.data as BigInt64Array).set([2n ** 60n + 1n, 2n ** 60n + 1n]);
    expect(Array.from(run('CumSum', [big, tensor('int32', [], [0])], { exclusive: attr.int(1) })[0]!.data as BigInt64Array)).toEqual([
      0n,
      2n ** 60n + 1n,
    ]);
    const bound = tensor('int64', [], []);
    (bound.data as BigInt64Array).set([2n ** 60n]);
    expect(Array.from(run('Clip', [big, undefined, bound])[0]!.data as BigInt64Array)).toEqual([2n ** 60n, 2n ** 60n]);
  });
  it('round-trips every float8 code through decode and encode', () => {
    for (const type of ['float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'float4e2m1'] as const) {
      const table = smallFloatDecodeTable(type);
      const codes = type === 'float4e2m1' ? 16 : 256;
      for (let code = 0; code < codes; code++) {
        const v = table[code]!;
        if (!Number.isFinite(v) || (v === 0 && code !== 0)) continue;
        expect(encodeSmallFloat(type, v, false)).toBe(code);
      }
    }
  });
  it('casts through float8 kinds', () => {
    const x = tensor('float32', [3], [0.5, 300, -1e9]);
    const f8 = run('Cast', [x], { to: attr.dtype('float8e4m3fn') })[0]!;
    expect(values(run('Cast', [f8], { to: attr.dtype('float32') })[0]!)).toEqual([0.5, 288, -448]);
  });
});
