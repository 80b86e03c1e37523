import { type AttrMap, type HostTensor, attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { runKernelOnHost } from '../host/run-on-host.js';
import { mlKernels } from './index.js';

const f32 = (dims: number[], values: number[]): HostTensor => createTensor('float32', dims, Float32Array.from(values));
const values = (t: HostTensor | undefined): unknown[] => Array.from(t?.data as ArrayLike<unknown>);

function run(opType: string, inputs: HostTensor[], attrs: Record<string, ReturnType<typeof attr.int>>): HostTensor {
  const kernel = mlKernels.find((k) => k.opType === opType);
  if (!kernel) throw new Error(`no kernel ${opType}`);
  return runKernelOnHost(kernel, inputs, { attrs: new Map(Object.entries(attrs)) as AttrMap, outputCount: 1 })[0] as HostTensor;
}

describe('LabelEncoder', () => {
  it('maps strings to int64 with the default', () => {
    const x = createTensor('string', [3], ['a', 'b', 'z']);
    const y = run('LabelEncoder', [x], {
      keys_strings: attr.strings(['a', 'b']),
      values_int64s: attr.ints([1, 2]),
      default_int64: attr.int(42),
    });
    expect(y.type).toBe('int64');
    expect(values(y)).toEqual([1n, 2n, 42n]);
  });
  it('maps through tensor attributes', () => {
    const x = createTensor('int64', [2], BigInt64Array.of(1n, 3n));
    const y = run('LabelEncoder', [x], {
      keys_tensor: attr.tensor(createTensor('int64', [2], BigInt64Array.of(1n, 2n))),
      values_tensor: attr.tensor(createTensor('string', [2], ['one', 'two'])),
      default_tensor: attr.tensor(createTensor('string', [1], ['none'])),
    });
    expect(values(y)).toEqual(['one', 'none']);
  });
});

describe('ArrayFeatureExtractor and Binarizer', () => {
  it('extracts columns', () => {
    const y = run('ArrayFeatureExtractor', [f32([2, 3], [0, 1, 2, 3, 4, 5]), createTensor('int64', [2], BigInt64Array.of(2n, 0n))], {});
    expect(y.dims).toEqual([2, 2]);
    expect(values(y)).toEqual([2, 0, 5, 3]);
  });
  it('thresholds', () => {
    expect(values(run('Binarizer', [f32([3], [-1, 0.5, 2])], { threshold: attr.float(0.5) }))).toEqual([0, 0, 1]);
  });
});

describe('TreeEnsemble', () => {
  it('walks branch and set-membership nodes and sums per target', () => {
    // node 0: x0 <= 1 ? node 1 : leaf 2;  node 1: x1 in {2, 5} ? leaf 0 : leaf 1
    const attrs = {
      nodes_modes: attr.tensor(createTensor('uint8', [2], Uint8Array.of(0, 6))),
      nodes_splits: attr.tensor(f32([2], [1, Number.NaN])),
      nodes_featureids: attr.ints([0, 1]),
      nodes_truenodeids: attr.ints([1, 0]),
      nodes_falsenodeids: attr.ints([2, 1]),
      nodes_trueleafs: attr.ints([0, 1]),
      nodes_falseleafs: attr.ints([1, 1]),
      membership_values: attr.tensor(f32([3], [2, 5, Number.NaN])),
      leaf_targetids: attr.ints([0, 1, 0]),
      leaf_weights: attr.tensor(f32([3], [10, 20, 30])),
      tree_roots: attr.ints([0]),
      n_targets: attr.int(2),
    };
    const y = run('TreeEnsemble', [f32([3, 2], [0, 5, 0, 3, 2, 0])], attrs);
    expect(y.dims).toEqual([3, 2]);
    expect(values(y)).toEqual([10, 0, 0, 20, 30, 0]);
  });
});

describe('training optimizers', () => {
  const runMany = (
    opType: string,
    inputs: HostTensor[],
    attrs: Record<string, ReturnType<typeof attr.int>>,
    outputCount: number,
  ): HostTensor[] => {
    const kernel = mlKernels.find((k) => k.opType === opType);
    if (!kernel) throw new Error(`no kernel ${opType}`);
    return runKernelOnHost(kernel, inputs, { attrs: new Map(Object.entries(attrs)) as AttrMap, outputCount }) as HostTensor[];
  };
  const r = f32([], [0.1]);
  const t = createTensor('int64', [], BigInt64Array.of(1n));
  it('applies Adagrad', () => {
    const [x, h] = runMany('Adagrad', [r, t, f32([1], [1]), f32([1], [2]), f32([1], [0])], { epsilon: attr.float(0) }, 2);
    expect(values(h)).toEqual([4]);
    expect((values(x)[0] as number).toFixed(4)).toBe('0.9000');
  });
  it('applies standard and Nesterov momentum', () => {
    const base = { alpha: attr.float(0.5), beta: attr.float(1), norm_coefficient: attr.float(0) };
    const [x, v] = runMany('Momentum', [r, t, f32([1], [1]), f32([1], [2]), f32([1], [2])], { ...base, mode: attr.string('standard') }, 2);
    expect(values(v)).toEqual([3]);
    expect((values(x)[0] as number).toFixed(4)).toBe('0.7000');
    const [xn] = runMany('Momentum', [r, t, f32([1], [1]), f32([1], [2]), f32([1], [2])], { ...base, mode: attr.string('nesterov') }, 2);
    expect((values(xn)[0] as number).toFixed(4)).toBe('0.6500');
  });
  it('applies Adam with bias correction', () => {
    const [x, v, h] = runMany('Adam', [r, t, f32([1], [1]), f32([1], [1]), f32([1], [0]), f32([1], [0])], { epsilon: attr.float(0) }, 3);
    expect((values(v)[0] as number).toFixed(4)).toBe('0.1000');
    expect((values(h)[0] as number).toFixed(4)).toBe('0.0010');
    // first step of Adam moves by the learning rate times sign(g)
    expect((values(x)[0] as number).toFixed(4)).toBe('0.9000');
  });
});
