import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { parseEinsum } from '@tsge/ops/kernel-support';
import { info, infer, run, runAt, tensor, values } from './test-helpers.fixture.js';

describe('Einsum and Det', () => {
  it('computes matmul, transpose, trace, batch and implicit forms', () => {
    const a = tensor('float32', [2, 3], [1, 2, 3, 4, 5, 6]);
    const b = tensor('float32', [3, 2], [1, 0, 0, 1, 1, 1]);
    expect(values(run('Einsum', [a, b], { equation: attr.string('ij,jk->ik') })[0]!)).toEqual([4, 5, 10, 11]);
    expect(values(run('Einsum', [a], { equation: attr.string('ij->ji') })[0]!)).toEqual([1, 4, 2, 5, 3, 6]);
    const sq = tensor('float64', [2, 2], [1, 2, 3, 4]);
    expect(values(run('Einsum', [sq], { equation: attr.string('ii') })[0]!)).toEqual([5]);
    expect(values(run('Einsum', [a], { equation: attr.string('ij') })[0]!)).toEqual([1, 2, 3, 4, 5, 6]);
    const batch = run('Einsum', [tensor('float32', [2, 1, 2], [1, 2, 3, 4]), tensor('float32', [2, 2, 1], [1, 1, 2, 2])], {
      equation: attr.string('...ij,...jk->...ik'),
    })[0]!;
    expect(batch.dims).toEqual([2, 1, 1]);
    expect(values(batch)).toEqual([3, 14]);
    const v = tensor('float32', [3], [1, 2, 3]);
    expect(values(run('Einsum', [v, v, v], { equation: attr.string('i,i,i->') })[0]!)).toEqual([36]);
    expect(values(run('Einsum', [a], { equation: attr.string('ij->') })[0]!)).toEqual([21]);
    expect(values(run('Einsum', [v, v], { equation: attr.string('i,j->ij') })[0]!)).toEqual([1, 2, 3, 2, 4, 6, 3, 6, 9]);
    expect(values(run('Einsum', [tensor('float32', [], [2]), v], { equation: attr.string(',i->i') })[0]!)).toEqual([2, 4, 6]);
    expect(parseEinsum('ij,jk', [2, 2])).toEqual({
      inputs: [
        ['i', 'j'],
        ['j', 'k'],
      ],
      output: ['i', 'k'],
    });
    expect(typeof parseEinsum('ij->k', [2])).toBe('string');
    expect(infer('Einsum', [info('float32', ['N', 3]), info('float32', [3, 5])], { equation: attr.string('ij,jk->ik') })[0]!.shape).toEqual(
      ['N', 5],
    );
  });
  it('computes batched determinants', () => {
    const [y] = run('Det', [tensor('float32', [2, 2, 2], [1, 2, 3, 4, 2, 0, 0, 3])]);
    expect(y!.dims).toEqual([2]);
    expect(values(y!)).toEqual([-2, 6]);
  });
});

describe('Trilu, CumSum, Clip, Shrink', () => {
  const m = tensor('int64', [3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  it('keeps triangles with offsets', () => {
    expect(values(run('Trilu', [m])[0]!)).toEqual([1, 2, 3, 0, 5, 6, 0, 0, 9]);
    expect(values(run('Trilu', [m, tensor('int64', [], [-1])], { upper: attr.int(0) })[0]!)).toEqual([0, 0, 0, 4, 0, 0, 7, 8, 0]);
  });
  it('accumulates with exclusive and reverse', () => {
    const x = tensor('float32', [4], [1, 2, 3, 4]);
    const axis = tensor('int32', [], [0]);
    expect(values(run('CumSum', [x, axis])[0]!)).toEqual([1, 3, 6, 10]);
    expect(values(run('CumSum', [x, axis], { exclusive: attr.int(1), reverse: attr.int(1) })[0]!)).toEqual([9, 7, 4, 0]);
    expect(values(run('CumProd', [x, axis])[0]!)).toEqual([1, 2, 6, 24]);
    const y = run('CumSum', [tensor('int32', [2, 2], [1, 2, 3, 4]), tensor('int64', [], [-1])])[0]!;
    expect(values(y)).toEqual([1, 3, 3, 7]);
  });
  it('clips with optional bounds and shrinks', () => {
    const x = tensor('float32', [4], [-2, -0.5, 0.5, 2]);
    expect(values(run('Clip', [x, tensor('float32', [], [-1]), tensor('float32', [], [1])])[0]!)).toEqual([-1, -0.5, 0.5, 1]);
    expect(values(run('Clip', [x, undefined, tensor('float32', [], [0])])[0]!)).toEqual([-2, -0.5, 0, 0]);
    expect(values(run('Shrink', [x], { lambd: attr.float(1), bias: attr.float(0.5) })[0]!)).toEqual([-1.5, 0, 0, 1.5]);
  });
});

describe('TopK, Hardmax, Range, EyeLike, Bernoulli', () => {
  it('selects the top k stably along an axis', () => {
    const x = tensor('float32', [2, 4], [3, 1, 3, 2, 0, 5, 5, 1]);
    const [v, i] = run('TopK', [x, tensor('int64', [1], [2])], {}, 2);
    expect(values(v!)).toEqual([3, 3, 5, 5]);
    expect(values(i!)).toEqual([0, 2, 1, 2]);
    const [s, si] = run('TopK', [x, tensor('int64', [1], [1])], { largest: attr.int(0), axis: attr.int(0) }, 2);
    expect(values(s!)).toEqual([0, 1, 3, 1]);
    expect(values(si!)).toEqual([1, 0, 0, 1]);
    const inferred = infer(
      'TopK',
      [info('float32', ['N', 4]), info('int64', [1])],
      {},
      { outputCount: 2, inputValues: [undefined, tensor('int64', [1], [3])] },
    );
    expect(inferred[1]).toEqual({ dtype: 'int64', shape: ['N', 3] });
  });
  it('rejects invalid k, axes and sizes with kernel errors', () => {
    const x = tensor('float32', [3], [1, 2, 3]);
    expect(() => run('TopK', [x, tensor('int64', [1], [4])], {}, 2)).toThrow(/TSGE-E4003/);
    expect(values(run('TopK', [x], { k: attr.int(1) }, 2)[0]!)).toEqual([3]);
    expect(() => run('ArgMax', [x], { axis: attr.int(2) })).toThrow(/TSGE-E4003/);
    expect(() => run('Range', [tensor('float32', [], [0]), tensor('float32', [], [1e12]), tensor('float32', [], [1])])).toThrow(
      /too large/,
    );
    expect(() => run('Einsum', [x], { equation: attr.string('ij->i') })).toThrow(/TSGE-E4003/);
    expect(() => run('MatMul', [x, tensor('float32', [2, 2], [1, 2, 3, 4])])).toThrow(/inner dims/);
  });
  it('one-hots the first maximum, flattening to 2-D before opset 13', () => {
    expect(values(run('Hardmax', [tensor('float32', [2, 3], [1, 3, 3, 0, -1, -2])])[0]!)).toEqual([0, 1, 0, 1, 0, 0]);
    const x = tensor('float32', [1, 2, 2], [1, 5, 7, 2]);
    expect(values(run('Hardmax', [x])[0]!)).toEqual([0, 1, 1, 0]);
    expect(values(runAt(11, 'Hardmax', [x])[0]!)).toEqual([0, 0, 1, 0]);
  });
  it('generates ranges, identities and Bernoulli draws', () => {
    expect(values(run('Range', [tensor('int32', [], [10]), tensor('int32', [], [4]), tensor('int32', [], [-3])])[0]!)).toEqual([10, 7]);
    expect(values(run('Range', [tensor('float32', [], [0]), tensor('float32', [], [1]), tensor('float32', [], [0.25])])[0]!)).toEqual([
      0, 0.25, 0.5, 0.75,
    ]);
    expect(infer('Range', [info('int64', []), info('int64', []), info('int64', [])])[0]!.shape).toEqual(['range_1']);
    expect(values(run('EyeLike', [tensor('float32', [2, 3], [9, 9, 9, 9, 9, 9])], { k: attr.int(1), dtype: attr.int(6) })[0]!)).toEqual([
      0, 1, 0, 0, 0, 1,
    ]);
    const p = tensor('float32', [200], new Array(200).fill(0.5));
    const draw = values(run('Bernoulli', [p], { seed: attr.float(3) })[0]!);
    expect(draw.every((v) => v === 0 || v === 1)).toBe(true);
    expect(draw).toEqual(values(run('Bernoulli', [p], { seed: attr.float(3) })[0]!));
    expect(values(run('Bernoulli', [tensor('float64', [2], [0, 1])], { dtype: attr.dtype('bool') })[0]!)).toEqual([0, 1]);
  });
});
