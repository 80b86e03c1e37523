import { type AttrMap, type HostTensor, type RuntimeValue, attr, createAttrReader, createTensor, numberToFloat16 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { inferOnValues, tensorOps } from '@tsge/ops/kernel-support';
import { runKernelOnHost } from '../host/run-on-host.js';
import { tensorKernels } from './index.js';

const f32 = (dims: number[], values: number[]): HostTensor => createTensor('float32', dims, Float32Array.from(values));
const i64 = (dims: number[], values: number[]): HostTensor => createTensor('int64', dims, BigInt64Array.from(values, BigInt));
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

function run(
  opType: string,
  inputs: (RuntimeValue | undefined)[],
  attrs: Record<string, ReturnType<typeof attr.int>> = {},
  outputCount = 1,
): HostTensor[] {
  const kernel = tensorKernels.find((k) => k.opType === opType);
  if (!kernel) throw new Error(`no kernel ${opType}`);
  return runKernelOnHost(kernel, inputs, { attrs: new Map(Object.entries(attrs)) as AttrMap, outputCount }) as HostTensor[];
}
function infer(
  opType: string,
  inputs: Parameters<typeof inferOnValues>[1],
  attrs: Record<string, ReturnType<typeof attr.int>> = {},
  values: (HostTensor | undefined)[] = [],
  outputCount?: number,
) {
  const def = tensorOps.find((d) => d.type === opType);
  if (!def) throw new Error(`no op ${opType}`);
  return inferOnValues(def, inputs, { attrs: new Map(Object.entries(attrs)) as AttrMap, values, ...(outputCount ? { outputCount } : {}) });
}
const values = (t: HostTensor | undefined): unknown[] => Array.from(t?.data as ArrayLike<unknown>);

describe('Shape and Size', () => {
  it('slices dims with start/end clamping', () => {
    const x = f32([2, 3, 4], range(24));
    expect(values(run('Shape', [x])[0])).toEqual([2n, 3n, 4n]);
    expect(values(run('Shape', [x], { start: attr.int(-2) })[0])).toEqual([3n, 4n]);
    expect(values(run('Shape', [x], { start: attr.int(2), end: attr.int(1) })[0])).toEqual([]);
    expect(values(run('Shape', [x], { end: attr.int(10) })[0])).toEqual([2n, 3n, 4n]);
    expect(infer('Shape', [{ dtype: 'float32', shape: ['b', 3, 4] }], { start: attr.int(1) })[0]).toEqual({ dtype: 'int64', shape: [2] });
    expect(values(run('Size', [x])[0])).toEqual([24n]);
  });
});

describe('Reshape family', () => {
  it('resolves 0 and -1, and allowzero', () => {
    const x = f32([2, 3, 4], range(24));
    const [y] = run('Reshape', [x, i64([3], [0, -1, 2])]);
    expect(y?.dims).toEqual([2, 6, 2]);
    expect(
      infer(
        'Reshape',
        [
          { dtype: 'float32', shape: ['b', 3, 4] },
          { dtype: 'int64', shape: [2] },
        ],
        {},
        [undefined, i64([2], [0, -1])],
      )[0]?.shape,
    ).toEqual(['b', -1]);
    const empty = f32([0, 3], []);
    expect(run('Reshape', [empty, i64([2], [3, 0])], { allowzero: attr.int(1) })[0]?.dims).toEqual([3, 0]);
    expect(() => run('Reshape', [x, i64([1], [5])])).toThrow(/cannot reshape/);
  });
  it('flattens, squeezes and unsqueezes with negative axes', () => {
    const x = f32([2, 1, 3], range(6));
    expect(run('Flatten', [x], { axis: attr.int(-1) })[0]?.dims).toEqual([2, 3]);
    expect(run('Flatten', [x], { axis: attr.int(0) })[0]?.dims).toEqual([1, 6]);
    expect(run('Squeeze', [x])[0]?.dims).toEqual([2, 3]);
    expect(run('Squeeze', [x, i64([1], [-2])])[0]?.dims).toEqual([2, 3]);
    expect(() => run('Squeeze', [x, i64([1], [0])])).toThrow();
    const [u] = run('Unsqueeze', [x, i64([2], [-1, 0])]);
    expect(u?.dims).toEqual([1, 2, 1, 3, 1]);
    expect(values(u)).toEqual(range(6));
  });
});

describe('Transpose', () => {
  it('permutes, defaults to reversed axes, handles strings', () => {
    const x = f32([2, 3], range(6));
    expect(values(run('Transpose', [x])[0])).toEqual([0, 3, 1, 4, 2, 5]);
    const s = createTensor('string', [1, 2, 2], ['a', 'b', 'c', 'd']);
    const [y] = run('Transpose', [s], { perm: attr.ints([2, 0, 1]) });
    expect(y?.dims).toEqual([2, 1, 2]);
    expect(values(y)).toEqual(['a', 'c', 'b', 'd']);
    expect(infer('Transpose', [{ dtype: 'float32', shape: ['n', 3, 5] }], { perm: attr.ints([1, 2, 0]) })[0]?.shape).toEqual([3, 5, 'n']);
  });
});

describe('Concat and Split', () => {
  it('concatenates along a negative axis, including empty inputs', () => {
    const a = f32([2, 1], [1, 2]);
    const b = f32([2, 2], [3, 4, 5, 6]);
    const e = f32([2, 0], []);
    const [y] = run('Concat', [a, e, b], { axis: attr.int(-1) });
    expect(y?.dims).toEqual([2, 3]);
    expect(values(y)).toEqual([1, 3, 4, 2, 5, 6]);
    expect(
      infer(
        'Concat',
        [
          { dtype: 'float32', shape: ['n', 1] },
          { dtype: 'float32', shape: ['n', 2] },
        ],
        { axis: attr.int(1) },
      )[0]?.shape,
    ).toEqual(['n', 3]);
  });
  it('splits by sizes, by num_outputs (uneven) and equally', () => {
    const x = f32([7], range(7));
    const parts = run('Split', [x], { num_outputs: attr.int(3) }, 3);
    expect(parts.map((p) => values(p))).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    const sized = run('Split', [f32([2, 3], range(6)), i64([2], [1, 2])], { axis: attr.int(1) }, 2);
    expect(sized.map((p) => values(p))).toEqual([
      [0, 3],
      [1, 2, 4, 5],
    ]);
    const zero = run('Split', [x, i64([3], [0, 7, 0])], {}, 3);
    expect(zero.map((p) => p.dims)).toEqual([[0], [7], [0]]);
    expect(() => run('Split', [x], {}, 2)).toThrow();
  });
});

describe('Slice', () => {
  it('clamps, steps backwards, and takes negative axes', () => {
    const x = f32([3, 4], range(12));
    expect(values(run('Slice', [x, i64([1], [-1]), i64([1], [-1000]), i64([1], [1]), i64([1], [-1])])[0])).toEqual([
      3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8,
    ]);
    const [y] = run('Slice', [x, i64([2], [1, 0]), i64([2], [1000, 10]), i64([2], [0, -1]), i64([2], [1, 2])]);
    expect(y?.dims).toEqual([2, 2]);
    expect(values(y)).toEqual([4, 6, 8, 10]);
    expect(run('Slice', [x, i64([1], [5]), i64([1], [9]), i64([1], [0])])[0]?.dims).toEqual([0, 4]);
    expect(
      infer(
        'Slice',
        [
          { dtype: 'float32', shape: ['n', 4] },
          { dtype: 'int64', shape: [1] },
          { dtype: 'int64', shape: [1] },
          { dtype: 'int64', shape: [1] },
        ],
        {},
        [undefined, i64([1], [1]), i64([1], [3]), i64([1], [1])],
      )[0]?.shape,
    ).toEqual(['n', 2]);
  });
});

describe('Gather family', () => {
  it('gathers with negative indices and 2-D indices', () => {
    const x = f32([3, 2], range(6));
    const [y] = run('Gather', [x, i64([2, 2], [0, -1, 1, 1])]);
    expect(y?.dims).toEqual([2, 2, 2]);
    expect(values(y)).toEqual([0, 1, 4, 5, 2, 3, 2, 3]);
    const [z] = run('Gather', [x, createTensor('int32', [1], Int32Array.of(1))], { axis: attr.int(1) });
    expect(values(z)).toEqual([1, 3, 5]);
    expect(() => run('Gather', [x, i64([1], [3])])).toThrow(/out of range/);
  });
  it('gathers elements along an axis', () => {
    const x = f32([2, 2], [1, 2, 3, 4]);
    expect(values(run('GatherElements', [x, i64([2, 2], [0, 0, 1, 0])], { axis: attr.int(1) })[0])).toEqual([1, 1, 4, 3]);
    expect(values(run('GatherElements', [x, i64([1, 2], [-1, 0])])[0])).toEqual([3, 2]);
  });
  it('gathers nd slices with batch_dims', () => {
    const x = createTensor('int32', [2, 2], Int32Array.of(0, 1, 2, 3));
    expect(values(run('GatherND', [x, i64([2, 2], [0, 0, 1, 1])])[0])).toEqual([0, 3]);
    expect(values(run('GatherND', [x, i64([2, 1], [1, 0])])[0])).toEqual([2, 3, 0, 1]);
    const b = createTensor('int32', [2, 2, 2], Int32Array.from(range(8)));
    const [y] = run('GatherND', [b, i64([2, 1], [1, 0])], { batch_dims: attr.int(1) });
    expect(y?.dims).toEqual([2, 2]);
    expect(values(y)).toEqual([2, 3, 4, 5]);
  });
});

describe('Scatter family', () => {
  it('scatters elements with every reduction', () => {
    const x = f32([1, 5], [1, 2, 3, 4, 5]);
    const idx = i64([1, 2], [1, 1]);
    const upd = f32([1, 2], [1.1, 2.1]);
    const got = (reduction: string) =>
      values(run('ScatterElements', [x, idx, upd], { axis: attr.int(1), reduction: attr.string(reduction) })[0]).map(
        (v) => Math.round((v as number) * 100) / 100,
      );
    expect(got('add')).toEqual([1, 5.2, 3, 4, 5]);
    expect(got('mul')).toEqual([1, 4.62, 3, 4, 5]);
    expect(got('max')).toEqual([1, 2.1, 3, 4, 5]);
    expect(got('min')).toEqual([1, 1.1, 3, 4, 5]);
    expect(values(run('Scatter', [f32([3], [0, 0, 0]), i64([2], [-1, 0]), f32([2], [7, 8])])[0])).toEqual([8, 0, 7]);
  });
  it('reduces int64 and float16 data', () => {
    const [y] = run('ScatterElements', [i64([3], [1, 2, 3]), i64([2], [0, 0]), i64([2], [10, 20])], { reduction: attr.string('add') });
    expect(values(y)).toEqual([31n, 2n, 3n]);
    const h = createTensor('float16', [2], Uint16Array.of(numberToFloat16(1), numberToFloat16(2)));
    const u = createTensor('float16', [1], Uint16Array.of(numberToFloat16(3)));
    expect(values(run('ScatterElements', [h, i64([1], [1]), u], { reduction: attr.string('mul') })[0])).toEqual([
      numberToFloat16(1),
      numberToFloat16(6),
    ]);
  });
  it('scatters nd slices', () => {
    const x = f32([4, 2], range(8));
    const [y] = run('ScatterND', [x, i64([2, 1], [0, 2]), f32([2, 2], [9, 9, 8, 8])], { reduction: attr.string('add') });
    expect(values(y)).toEqual([9, 10, 2, 3, 12, 13, 6, 7]);
  });
  it('writes a KV-cache update linearly and circularly', () => {
    const past = f32([2, 4, 1], range(8));
    const upd = f32([2, 2, 1], [10, 11, 20, 21]);
    const [lin] = run('TensorScatter', [past, upd, i64([2], [1, 2])], { axis: attr.int(1) });
    expect(values(lin)).toEqual([0, 10, 11, 3, 4, 5, 20, 21]);
    const [circ] = run('TensorScatter', [past, upd, i64([2], [3, 0])], { axis: attr.int(1), mode: attr.string('circular') });
    expect(values(circ)).toEqual([11, 1, 2, 10, 20, 21, 6, 7]);
  });
});

describe('Expand, Tile, Pad', () => {
  it('expands bidirectionally', () => {
    const [y] = run('Expand', [f32([3, 1], [1, 2, 3]), i64([3], [2, 1, 2])]);
    expect(y?.dims).toEqual([2, 3, 2]);
    expect(values(y)).toEqual([1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3]);
  });
  it('tiles', () => {
    const [y] = run('Tile', [f32([2, 2], [1, 2, 3, 4]), i64([2], [1, 2])]);
    expect(values(y)).toEqual([1, 2, 1, 2, 3, 4, 3, 4]);
  });
  it('pads in every mode, with axes and negative pads', () => {
    const x = f32([3], [1, 2, 3]);
    const pads = i64([2], [2, 2]);
    expect(values(run('Pad', [x, pads, f32([], [9])])[0])).toEqual([9, 9, 1, 2, 3, 9, 9]);
    expect(values(run('Pad', [x, pads], { mode: attr.string('reflect') })[0])).toEqual([3, 2, 1, 2, 3, 2, 1]);
    expect(values(run('Pad', [x, pads], { mode: attr.string('edge') })[0])).toEqual([1, 1, 1, 2, 3, 3, 3]);
    expect(values(run('Pad', [x, pads], { mode: attr.string('wrap') })[0])).toEqual([2, 3, 1, 2, 3, 1, 2]);
    expect(values(run('Pad', [x, i64([2], [-1, 1])])[0])).toEqual([2, 3, 0]);
    const m = f32([2, 2], [1, 2, 3, 4]);
    const [y] = run('Pad', [m, i64([2], [1, 0]), undefined, i64([1], [-1])]);
    expect(values(y)).toEqual([0, 1, 2, 0, 3, 4]);
  });
});

describe('DepthToSpace and SpaceToDepth', () => {
  it('round-trips in DCR mode and matches CRD layout', () => {
    const x = f32([1, 4, 1, 2], range(8));
    const [d] = run('DepthToSpace', [x], { blocksize: attr.int(2) });
    expect(d?.dims).toEqual([1, 1, 2, 4]);
    expect(values(d)).toEqual([0, 2, 1, 3, 4, 6, 5, 7]);
    const [crd] = run('DepthToSpace', [x], { blocksize: attr.int(2), mode: attr.string('CRD') });
    expect(values(crd)).toEqual([0, 2, 1, 3, 4, 6, 5, 7]);
    const [back] = run('SpaceToDepth', [d as HostTensor], { blocksize: attr.int(2) });
    expect(values(back)).toEqual(range(8));
  });
});

describe('OneHot, Compress, NonZero, ReverseSequence', () => {
  it('one-hot encodes along an axis with negative indices', () => {
    const [y] = run('OneHot', [i64([2], [1, -1]), f32([], [3]), f32([2], [0, 5])], { axis: attr.int(0) });
    expect(y?.dims).toEqual([3, 2]);
    expect(values(y)).toEqual([0, 0, 5, 0, 0, 5]);
  });
  it('compresses along an axis and flattened', () => {
    const x = f32([3, 2], range(6));
    const cond = createTensor('bool', [2], Uint8Array.of(0, 1));
    expect(values(run('Compress', [x, cond], { axis: attr.int(0) })[0])).toEqual([2, 3]);
    expect(values(run('Compress', [x, cond])[0])).toEqual([1]);
  });
  it('lists nonzero coordinates', () => {
    const [y] = run('NonZero', [createTensor('bool', [2, 2], Uint8Array.of(1, 0, 1, 1))]);
    expect(y?.dims).toEqual([2, 3]);
    expect(values(y)).toEqual([0n, 1n, 1n, 0n, 0n, 1n]);
  });
  it('reverses sequences per batch', () => {
    const x = f32([4, 2], range(8));
    const [y] = run('ReverseSequence', [x, i64([2], [4, 2])], { batch_axis: attr.int(1), time_axis: attr.int(0) });
    expect(values(y)).toEqual([6, 3, 4, 1, 2, 5, 0, 7]);
  });
});

describe('Identity and constants', () => {
  it('copies tensors and passes sequences through', () => {
    expect(values(run('Identity', [f32([2], [1, 2])])[0])).toEqual([1, 2]);
    const seq = { kind: 'sequence', elementType: 'float32', items: [] } as const;
    expect(run('Identity', [seq])[0]).toBe(seq);
  });
  it('builds constants from every value attribute', () => {
    expect(values(run('Constant', [], { value_ints: attr.ints([1, 2]) })[0])).toEqual([1n, 2n]);
    expect(run('Constant', [], { value_string: attr.string('hi') })[0]?.data).toEqual(['hi']);
    expect(infer('Constant', [], { value_float: attr.float(2) })[0]).toEqual({ dtype: 'float32', shape: [] });
    const [c] = run('ConstantOfShape', [i64([2], [2, 1])], { value: attr.tensor(createTensor('int32', [1], Int32Array.of(7))) });
    expect(c?.type).toBe('int32');
    expect(values(c)).toEqual([7, 7]);
    expect(run('ConstantOfShape', [i64([1], [0])])[0]?.dims).toEqual([0]);
  });
});

describe('Unique', () => {
  it('returns sorted uniques with indices, inverse and counts', () => {
    const [y, idx, inv, counts] = run('Unique', [f32([6], [2, 1, 1, 3, 4, 3])], {}, 4);
    expect(values(y)).toEqual([1, 2, 3, 4]);
    expect(values(idx)).toEqual([1n, 0n, 3n, 4n]);
    expect(values(inv)).toEqual([1n, 0n, 0n, 2n, 3n, 2n]);
    expect(values(counts)).toEqual([2n, 1n, 2n, 1n]);
    const [unsorted] = run('Unique', [f32([6], [2, 1, 1, 3, 4, 3])], { sorted: attr.int(0) }, 4);
    expect(values(unsorted)).toEqual([2, 1, 3, 4]);
  });
  it('finds unique slices along an axis', () => {
    const x = f32([3, 3], [1, 0, 0, 1, 0, 0, 2, 3, 4]);
    const [y, , inv, counts] = run('Unique', [x], { axis: attr.int(0) }, 4);
    expect(y?.dims).toEqual([2, 3]);
    expect(values(y)).toEqual([1, 0, 0, 2, 3, 4]);
    expect(values(inv)).toEqual([0n, 0n, 1n]);
    expect(values(counts)).toEqual([2n, 1n]);
  });
});

describe('in-place kernels', () => {
  it('update a KV cache in place when the output aliases past_cache', () => {
    const kernel = tensorKernels.find((k) => k.opType === 'TensorScatter');
    if (!kernel) throw new Error('no TensorScatter');
    expect(kernel.inPlace).toEqual([[0, 0]]);
    const past = f32([1, 3, 1], [0, 0, 0]);
    const update = f32([1, 1, 1], [5]);
    const inputs = [past, update, i64([1], [2])];
    // an executor hands back a view of the same memory as the aliased input
    const aliased: HostTensor = { type: 'float32', dims: past.dims, data: new Float32Array((past.data as Float32Array).buffer) };
    kernel.compute({
      nodeName: 'n',
      opType: 'TensorScatter',
      attrs: createAttrReader(new Map([['axis', attr.int(1)]])),
      inputCount: 3,
      outputCount: 1,
      opsetVersion: 24,
      input: (i) => inputs[i],
      tensor: (i) => inputs[i],
      output: () => aliased,
      setOutput: () => {},
      runSubgraph: () => [],
    });
    expect(values(past)).toEqual([0, 0, 5]);
  });
});
