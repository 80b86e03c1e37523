import {
  type AttrMap,
  type DataType,
  type HostTensor,
  type RuntimeValue,
  type ValueInfo,
  attr,
  createTensor,
  numberToFloat16,
} from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { inferOnValues, tensorOps } from '@tsge/ops/kernel-support';
import { runKernelOnHost } from '../host/run-on-host.js';
import { tensorKernels } from './index.js';

const i64 = (dims: number[], values: number[]): HostTensor => createTensor('int64', dims, BigInt64Array.from(values, BigInt));
function run(opType: string, inputs: (RuntimeValue | undefined)[], attrs: Record<string, ReturnType<typeof attr.int>> = {}): HostTensor {
  const kernel = tensorKernels.find((k) => k.opType === opType);
  if (!kernel) throw new Error(`no kernel ${opType}`);
  return runKernelOnHost(kernel, inputs, { attrs: new Map(Object.entries(attrs)) as AttrMap, outputCount: 1 })[0] as HostTensor;
}
const values = (t: HostTensor): unknown[] => Array.from(t.data as ArrayLike<unknown>);

/** A [2, 3] tensor of `dtype` holding 0..5 (strings '0'..'5', bools alternating). */
function sample(dtype: DataType): HostTensor {
  const n = [0, 1, 2, 3, 4, 5];
  switch (dtype) {
    case 'string':
      return createTensor(dtype, [2, 3], n.map(String));
    case 'int64':
      return createTensor(dtype, [2, 3], BigInt64Array.from(n, BigInt));
    case 'uint64':
      return createTensor(dtype, [2, 3], BigUint64Array.from(n, BigInt));
    case 'float16':
      return createTensor(dtype, [2, 3], Uint16Array.from(n, numberToFloat16));
    case 'bool':
      return createTensor(
        dtype,
        [2, 3],
        Uint8Array.from(n, (v) => v % 2),
      );
    case 'float64':
      return createTensor(dtype, [2, 3], Float64Array.from(n));
    case 'int8':
      return createTensor(
        dtype,
        [2, 3],
        Int8Array.from(n, (v) => -v),
      );
    default:
      return createTensor(dtype, [2, 3], Int32Array.from(n));
  }
}

describe('movement ops move every dtype bit-exactly', () => {
  const dtypes: DataType[] = ['string', 'int64', 'uint64', 'float16', 'bool', 'float64', 'int8', 'int32', 'float8e4m3fn'];
  for (const dtype of dtypes) {
    it(`${dtype}: Transpose, Slice, Expand, Tile, Pad, Gather, Concat`, () => {
      const x = sample(dtype);
      const raw = values(x);
      const at = (...indices: number[]) => indices.map((i) => raw[i]);
      expect(values(run('Transpose', [x]))).toEqual(at(0, 3, 1, 4, 2, 5));
      expect(values(run('Slice', [x, i64([1], [-1]), i64([1], [-10]), i64([1], [1]), i64([1], [-2])]))).toEqual(at(2, 0, 5, 3));
      expect(values(run('Expand', [x, i64([3], [2, 1, 1])]))).toEqual([...raw, ...raw]);
      expect(values(run('Tile', [x, i64([2], [1, 2])]))).toEqual(at(0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5));
      expect(values(run('Pad', [x, i64([4], [0, 1, 0, 0])], { mode: attr.string('edge') }))).toEqual(at(0, 0, 1, 2, 3, 3, 4, 5));
      expect(values(run('Gather', [x, i64([2], [2, 0])], { axis: attr.int(1) }))).toEqual(at(2, 0, 5, 3));
      expect(values(run('Concat', [x, x], { axis: attr.int(0) }))).toEqual([...raw, ...raw]);
    });
  }
  it('pads strings and int64 with their constant values', () => {
    const s = createTensor('string', [1], ['a']);
    expect(values(run('Pad', [s, i64([2], [1, 1]), createTensor('string', [], ['-'])]))).toEqual(['-', 'a', '-']);
    expect(values(run('Pad', [i64([1], [7]), i64([2], [1, 0])]))).toEqual([0n, 7n]);
  });
});

describe('inference with symbolic dims', () => {
  const infer = (
    opType: string,
    inputs: ValueInfo[],
    attrs: Record<string, ReturnType<typeof attr.int>> = {},
    values: (HostTensor | undefined)[] = [],
    outputCount?: number,
  ) => {
    const def = tensorOps.find((d) => d.type === opType);
    if (!def) throw new Error(`no op ${opType}`);
    return inferOnValues(def, inputs, {
      attrs: new Map(Object.entries(attrs)) as AttrMap,
      values,
      ...(outputCount ? { outputCount } : {}),
    });
  };
  const f = (shape: ValueInfo['shape']): ValueInfo => ({ dtype: 'float32', shape });
  const ints = (n: number): ValueInfo => ({ dtype: 'int64', shape: [n] });
  it('keeps symbols through Gather, Split, Pad, Expand, Tile, OneHot', () => {
    expect(infer('Gather', [f(['b', 's', 8]), { dtype: 'int64', shape: ['k'] }], { axis: attr.int(1) })[0]?.shape).toEqual(['b', 'k', 8]);
    expect(infer('Split', [f(['b', 6]), ints(2)], { axis: attr.int(1) }, [undefined, i64([2], [2, 4])], 2).map((o) => o?.shape)).toEqual([
      ['b', 2],
      ['b', 4],
    ]);
    expect(infer('Pad', [f(['b', 3]), ints(4)], {}, [undefined, i64([4], [0, 1, 0, 1])])[0]?.shape).toEqual([-1, 5]);
    expect(infer('Expand', [f(['b', 1]), ints(2)], {}, [undefined, i64([2], [1, 4])])[0]?.shape).toEqual(['b', 4]);
    expect(infer('Tile', [f(['b', 2]), ints(2)], {}, [undefined, i64([2], [1, 3])])[0]?.shape).toEqual([-1, 6]);
    expect(
      infer('OneHot', [{ dtype: 'int64', shape: ['n'] }, { dtype: 'int64', shape: [] }, f([2])], {}, [undefined, i64([], [10])])[0]?.shape,
    ).toEqual(['n', 10]);
  });
  it('gives data-dependent sizes fresh symbols and rejects invalid models', () => {
    const [y] = infer('NonZero', [f([2, 3])]);
    expect(y?.shape[0]).toBe(2);
    expect(typeof y?.shape[1]).toBe('string');
    expect(() => infer('Reshape', [f([2, 3]), ints(1)], {}, [undefined, i64([1], [7])])).toThrow(/cannot reshape/);
    expect(() => infer('Transpose', [f([2, 3])], { perm: attr.ints([0, 0]) })).toThrow(/permutation/);
    expect(() => infer('Concat', [f([2, 3]), f([3, 3])], { axis: attr.int(1) })).toThrow(/differs/);
  });
});
