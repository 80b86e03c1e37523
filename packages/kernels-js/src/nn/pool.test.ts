import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { poolKernels } from './pool.js';
import { expectClose, f32, runOp, tensorOf, values } from './test-support.fixture.js';

const x44 = f32(
  [1, 1, 4, 4],
  Array.from({ length: 16 }, (_, i) => i + 1),
);

describe('pooling', () => {
  it('max-pools with strides and returns row-major indices', () => {
    const [y, idx] = runOp(poolKernels, 'MaxPool', [x44], { kernel_shape: attr.ints([2, 2]), strides: attr.ints([2, 2]) }, 2);
    expect(y?.dims).toEqual([1, 1, 2, 2]);
    expect(values(y)).toEqual([6, 8, 14, 16]);
    expect(values(idx)).toEqual([5, 7, 13, 15]);
    const [, col] = runOp(
      poolKernels,
      'MaxPool',
      [x44],
      { kernel_shape: attr.ints([2, 2]), strides: attr.ints([2, 2]), storage_order: attr.int(1) },
      2,
    );
    expect(values(col)).toEqual([5, 13, 7, 15]);
  });
  it('average-pools with and without counting pads', () => {
    const a = { kernel_shape: attr.ints([3, 3]), pads: attr.ints([1, 1, 1, 1]) };
    const y = runOp(poolKernels, 'AveragePool', [x44], a)[0];
    expect(values(y)[0]).toBeCloseTo((1 + 2 + 5 + 6) / 4);
    const z = runOp(poolKernels, 'AveragePool', [x44], { ...a, count_include_pad: attr.int(1) })[0];
    expect(values(z)[0]).toBeCloseTo((1 + 2 + 5 + 6) / 9);
  });
  it('uses ceil_mode and SAME_UPPER output sizes', () => {
    const x = f32(
      [1, 1, 5, 5],
      Array.from({ length: 25 }, (_, i) => i),
    );
    const y = runOp(poolKernels, 'MaxPool', [x], {
      kernel_shape: attr.ints([2, 2]),
      strides: attr.ints([2, 2]),
      ceil_mode: attr.int(1),
    })[0];
    expect(y?.dims).toEqual([1, 1, 3, 3]);
    expect(values(y)).toEqual([6, 8, 9, 16, 18, 19, 21, 23, 24]);
    const s = runOp(poolKernels, 'AveragePool', [x], {
      kernel_shape: attr.ints([3, 3]),
      strides: attr.ints([2, 2]),
      auto_pad: attr.string('SAME_UPPER'),
    })[0];
    expect(s?.dims).toEqual([1, 1, 3, 3]);
  });
  it('handles int8 MaxPool and LpPool', () => {
    const y = runOp(poolKernels, 'MaxPool', [tensorOf('int8', [1, 1, 3], [-5, 3, -1])], { kernel_shape: attr.ints([2]) })[0];
    expect(y?.type).toBe('int8');
    expect(values(y)).toEqual([3, 3]);
    const l = runOp(poolKernels, 'LpPool', [f32([1, 1, 2], [3, 4])], { kernel_shape: attr.ints([2]), p: attr.int(2) })[0];
    expect(values(l)).toEqual([5]);
  });
  it('computes the global pools', () => {
    const x = f32([1, 2, 2], [1, 2, 3, 5]);
    expect(values(runOp(poolKernels, 'GlobalAveragePool', [x])[0])).toEqual([1.5, 4]);
    expect(values(runOp(poolKernels, 'GlobalMaxPool', [x])[0])).toEqual([2, 5]);
    expectClose(values(runOp(poolKernels, 'GlobalLpPool', [x])[0]), [Math.sqrt(5), Math.sqrt(34)]);
  });
});
