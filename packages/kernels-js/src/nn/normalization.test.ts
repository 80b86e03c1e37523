import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { normalizationKernels } from './normalization.js';
import { expectClose, f32, runOp, values } from './test-support.fixture.js';

describe('normalization', () => {
  it('applies BatchNormalization in inference and training mode', () => {
    const x = f32([1, 2, 2], [1, 3, 10, 20]);
    const p = (v: number[]) => f32([2], v);
    const y = runOp(normalizationKernels, 'BatchNormalization', [x, p([1, 2]), p([0, 1]), p([2, 10]), p([1, 4])], {
      epsilon: attr.float(0),
    })[0];
    expectClose(values(y), [-1, 1, 1, 11]);
    const [t, rm, rv] = runOp(
      normalizationKernels,
      'BatchNormalization',
      [x, p([1, 1]), p([0, 0]), p([0, 0]), p([1, 1])],
      { epsilon: attr.float(0), training_mode: attr.int(1) },
      3,
    );
    expectClose(values(t), [-1, 1, -1, 1]);
    expectClose(values(rm), [0.2, 1.5]);
    expectClose(values(rv), [0.9 + 0.1 * 1, 0.9 + 0.1 * 25]);
  });
  it('computes LayerNormalization with stash outputs', () => {
    const [y, mean, inv] = runOp(
      normalizationKernels,
      'LayerNormalization',
      [f32([2, 2], [1, 3, 2, 2]), f32([2], [1, 2]), f32([2], [0, 1])],
      { epsilon: attr.float(0) },
      3,
    );
    expectClose(values(y), [-1, 3, Number.NaN, Number.NaN]);
    expect(values(mean)).toEqual([2, 2]);
    expect(mean?.dims).toEqual([2, 1]);
    expect(values(inv)[0]).toBe(1);
  });
  it('computes InstanceNormalization, GroupNormalization and RMSNormalization', () => {
    const x = f32([1, 2, 2], [1, 3, 5, 9]);
    expectClose(
      values(runOp(normalizationKernels, 'InstanceNormalization', [x, f32([2], [1, 1]), f32([2], [0, 0])], { epsilon: attr.float(0) })[0]),
      [-1, 1, -1, 1],
    );
    const g = runOp(normalizationKernels, 'GroupNormalization', [x, f32([2], [1, 1]), f32([2], [0, 0])], {
      num_groups: attr.int(1),
      epsilon: attr.float(0),
    })[0];
    const mean = 4.5;
    const std = Math.sqrt(((1 - mean) ** 2 + (3 - mean) ** 2 + (5 - mean) ** 2 + (9 - mean) ** 2) / 4);
    expectClose(
      values(g),
      [1, 3, 5, 9].map((v) => (v - mean) / std),
    );
    const r = runOp(normalizationKernels, 'RMSNormalization', [f32([1, 2], [3, 4]), f32([2], [1, 2])], { epsilon: attr.float(0) })[0];
    const rms = Math.sqrt(12.5);
    expectClose(values(r), [3 / rms, 8 / rms]);
  });
  it('computes LRN, MeanVarianceNormalization and LpNormalization', () => {
    const lrn = runOp(normalizationKernels, 'LRN', [f32([1, 2, 1, 1], [1, 2])], {
      size: attr.int(3),
      alpha: attr.float(3),
      beta: attr.float(1),
      bias: attr.float(1),
    })[0];
    expectClose(values(lrn), [1 / 6, 2 / 6]);
    const mvn = runOp(normalizationKernels, 'MeanVarianceNormalization', [f32([1, 1, 1, 2], [1, 3])])[0];
    expectClose(values(mvn), [-1, 1]);
    const lp = runOp(normalizationKernels, 'LpNormalization', [f32([2, 2], [3, 4, 0, 0])])[0];
    expectClose(values(lp), [0.6, 0.8, 0, 0]);
  });
});
