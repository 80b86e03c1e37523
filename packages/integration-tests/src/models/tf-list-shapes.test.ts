// TensorList ops about element shapes and batches of lists, and TensorArrayCloseV3:
// TensorListElementShape (the shape a list was declared with), TensorListConcatV2's `leading_dims`
// (the first dimension of slots never written), TensorListPushBackBatch and TensorListConcatLists
// over a Pack of lists, and a TensorArray closed after use. TensorFlow.js 4.22 models only the
// close and ignores `leading_dims`, so the rest is checked against TensorFlow's kernels by hand.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import { type HostTensor, createTensor, isHostTensor } from '@tsge/metadef';
import { compareTensors, createRandom, randomTensor } from '@tsge/run';
import { describe, expect, it } from 'vitest';
import { type NodeJson, TF_PROTO, constNode, graphBytes, placeholder } from './tf-graph-fixture.js';
import { graphDefToArtifacts, runTfjsGraph } from './tfjs-reference.js';

const F = { T: { type: 'DT_FLOAT' } };
const I = { T: { type: 'DT_INT32' } };
const I64 = { T: { type: 'DT_INT64' } };
const et = { element_dtype: { type: 'DT_FLOAT' } };
const withShape = { ...et, shape_type: { type: 'DT_INT32' } };
const scalarInt = (name: string, v: number): NodeJson => constNode(name, [], [v], 'DT_INT32');
/** An int64 constant (constNode writes int_val, which int64 tensors do not read). */
const int64s = (name: string, data: number[]): NodeJson => ({
  name,
  op: 'Const',
  attr: {
    dtype: { type: 'DT_INT64' },
    value: { tensor: { dtype: 'DT_INT64', tensorShape: { dim: [{ size: data.length }] }, int64Val: data } },
  },
});
const elementShape = (name: string, list: string, type = 'DT_INT32'): NodeJson => ({
  name,
  op: 'TensorListElementShape',
  input: [list],
  attr: { shape_type: { type } },
});

async function runGraph(nodes: NodeJson[], feeds: Record<string, HostTensor>) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-list-shapes-')), 'g.pb');
  writeFileSync(file, graphBytes(nodes));
  const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
  try {
    const got = await model.run(feeds);
    return (name: string) => {
      const v = got[name];
      if (!isHostTensor(v)) throw new Error(`${name} is not a tensor`);
      return { type: v.type, dims: [...v.dims], data: Array.from(v.data, Number) };
    };
  } finally {
    await model.release();
  }
}

describe('TensorListElementShape', () => {
  it("gives the shape each list was declared with (unknown dims -1, an unknown rank as -1), not its elements'", async () => {
    const read = await runGraph(
      [
        placeholder('y', [2, 3]),
        constNode('partial', [2], [-1, 3], 'DT_INT32'),
        constNode('row', [1], [3], 'DT_INT32'),
        scalarInt('unknown', -1),
        scalarInt('two', 2),
        { name: 'empty', op: 'EmptyTensorList', input: ['partial', 'unknown'], attr: withShape },
        { name: 'pushed', op: 'TensorListPushBack', input: ['empty', 'y'], attr: et },
        { name: 'reserved', op: 'TensorListReserve', input: ['unknown', 'two'], attr: withShape },
        { name: 'from', op: 'TensorListFromTensor', input: ['y', 'row'], attr: withShape },
        { name: 'popped', op: 'TensorListPopBack', input: ['from', 'row'], attr: et },
        elementShape('s_empty', 'empty'),
        elementShape('s_pushed', 'pushed', 'DT_INT64'),
        elementShape('s_reserved', 'reserved'),
        elementShape('s_popped', 'popped'),
        { name: 'a', op: 'Identity', input: ['s_empty'], attr: I },
        { name: 'b', op: 'Identity', input: ['s_pushed'], attr: I64 },
        { name: 'c', op: 'Identity', input: ['s_reserved'], attr: I },
        { name: 'd', op: 'Identity', input: ['s_popped'], attr: I },
      ],
      { y: createTensor('float32', [2, 3], Float32Array.of(1, 2, 3, 4, 5, 6)) },
    );
    // TensorFlow's kernel answers the list's element_shape, whatever was pushed since
    expect(read('a')).toEqual({ type: 'int32', dims: [2], data: [-1, 3] });
    expect(read('b')).toEqual({ type: 'int64', dims: [2], data: [-1, 3] });
    expect(read('c')).toEqual({ type: 'int32', dims: [], data: [-1] });
    expect(read('d')).toEqual({ type: 'int32', dims: [1], data: [3] });
  }, 120_000);

  it('fails to parse, naming the node, when the declared shape is not a constant', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-list-shapes-')), 'g.pb');
    writeFileSync(
      file,
      graphBytes([
        placeholder('y', [2, 3]),
        { name: 'fed_shape', op: 'Shape', input: ['y'], attr: { ...F, out_type: { type: 'DT_INT32' } } },
        scalarInt('unknown', -1),
        { name: 'empty', op: 'EmptyTensorList', input: ['fed_shape', 'unknown'], attr: withShape },
        elementShape('bad', 'empty'),
        { name: 'out', op: 'Identity', input: ['bad'], attr: I },
      ]),
    );
    await expect(parseModel(file)).rejects.toThrow(/\bbad\b[\s\S]*declared element shape is not known/);
  }, 120_000);
});

describe("TensorListConcatV2's leading_dims", () => {
  it('give slots never written their first dimension, as TensorFlow does (by hand: tfjs ignores it)', async () => {
    // after TensorFlow's list_ops_test ConcatWithUninitializedTensorsUseProvidedElementShapeAndLengths
    const read = await runGraph(
      [
        placeholder('y', [3, 2]),
        scalarInt('unknown', -1),
        scalarInt('three', 3),
        scalarInt('one', 1),
        constNode('cols3', [2], [-1, 3], 'DT_INT32'),
        constNode('cols2', [2], [-1, 2], 'DT_INT32'),
        constNode('known', [2], [2, 3], 'DT_INT32'),
        int64s('lead_a', [2, 3, 5]),
        int64s('lead_b', [2, 3, 4]),
        int64s('lead_one', [1]),
        int64s('none', []),
        { name: 'l', op: 'TensorListReserve', input: ['unknown', 'three'], attr: withShape },
        { name: 'c_a', op: 'TensorListConcatV2', input: ['l', 'cols3', 'lead_a'], attr: withShape },
        { name: 'set', op: 'TensorListSetItem', input: ['l', 'one', 'y'], attr: et },
        // slot 1 is written: its 3 rows count, not leading_dims[1]
        { name: 'c_b', op: 'TensorListConcatV2', input: ['set', 'cols2', 'lead_b'], attr: withShape },
        // no leading_dims: element_shape's first dimension; past a short leading_dims too
        { name: 'c_c', op: 'TensorListConcatV2', input: ['l', 'known', 'none'], attr: withShape },
        { name: 'c_d', op: 'TensorListConcatV2', input: ['l', 'known', 'lead_one'], attr: withShape },
        { name: 'a', op: 'Identity', input: ['c_a'], attr: F },
        { name: 'a_lengths', op: 'Identity', input: ['c_a:1'], attr: I64 },
        { name: 'b', op: 'Identity', input: ['c_b'], attr: F },
        { name: 'b_lengths', op: 'Identity', input: ['c_b:1'], attr: I64 },
        { name: 'c', op: 'Identity', input: ['c_c'], attr: F },
        { name: 'd', op: 'Identity', input: ['c_d'], attr: F },
        { name: 'd_lengths', op: 'Identity', input: ['c_d:1'], attr: I64 },
      ],
      { y: createTensor('float32', [3, 2], Float32Array.of(2, 3, 4, 5, 6, 7)) },
    );
    const zeros = (n: number) => new Array<number>(n).fill(0);
    expect(read('a')).toEqual({ type: 'float32', dims: [10, 3], data: zeros(30) });
    expect(read('a_lengths')).toEqual({ type: 'int64', dims: [3], data: [2, 3, 5] });
    expect(read('b')).toEqual({ type: 'float32', dims: [9, 2], data: [...zeros(4), 2, 3, 4, 5, 6, 7, ...zeros(8)] });
    expect(read('b_lengths')).toEqual({ type: 'int64', dims: [3], data: [2, 3, 4] });
    expect(read('c')).toEqual({ type: 'float32', dims: [6, 3], data: zeros(18) });
    expect(read('d')).toEqual({ type: 'float32', dims: [5, 3], data: zeros(15) });
    expect(read('d_lengths')).toEqual({ type: 'int64', dims: [3], data: [1, 2, 2] });
  }, 120_000);
});

describe('TensorArrayCloseV3', () => {
  it('closes an array after its gather and the graph matches TensorFlow.js', async () => {
    const nodes: NodeJson[] = [
      placeholder('x', [3, 4]),
      scalarInt('three', 3),
      constNode('order', [3], [2, 0, 1], 'DT_INT32'),
      {
        name: 'ta',
        op: 'TensorArrayV3',
        input: ['three'],
        attr: {
          dtype: { type: 'DT_FLOAT' },
          element_shape: { shape: { dim: [{ size: 4 }] } },
          dynamic_size: { b: false },
          clear_after_read: { b: true },
          identical_element_shapes: { b: true },
          tensor_array_name: { s: '' },
        },
      },
      { name: 'scatter', op: 'TensorArrayScatterV3', input: ['ta', 'order', 'x', 'ta:1'], attr: F },
      {
        name: 'gather',
        op: 'TensorArrayGatherV3',
        input: ['ta', 'order', 'scatter'],
        attr: { dtype: { type: 'DT_FLOAT' }, element_shape: { shape: { dim: [{ size: 4 }] } } },
      },
      { name: 'close', op: 'TensorArrayCloseV3', input: ['ta', '^gather'] },
      { name: 'out', op: 'Identity', input: ['gather', '^close'], attr: F },
    ];
    const bytes = graphBytes(nodes);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-list-shapes-')), 'g.pb');
    writeFileSync(file, bytes);
    const graph = await parseModel(file);
    const model = await loadModel(await buildModel(graph, {}), { threads: 1 });
    const feeds = { x: randomTensor('float32', [3, 4], createRandom(31)) };
    try {
      const got = (await model.run(feeds)).out as HostTensor;
      const expected = (await runTfjsGraph({ load: async () => graphDefToArtifacts(bytes, TF_PROTO) }, feeds, ['out'])).out as HostTensor;
      expect(got.dims).toEqual(expected.dims);
      expect(compareTensors('out', got, expected).maxRelError).toBeLessThanOrEqual(1e-6);
    } finally {
      await model.release();
    }
  }, 120_000);
});

describe('batches of TensorLists (a Pack of lists)', () => {
  const stack = (name: string, list: string, shape = 'scalar_shape'): NodeJson => ({
    name,
    op: 'TensorListStack',
    input: [list, shape],
    attr: { ...et, num_elements: { i: -1 } },
  });
  const lists: NodeJson[] = [
    placeholder('x', [2]),
    placeholder('y', [1]),
    constNode('scalar_shape', [0], [], 'DT_INT32'),
    constNode('pushed_rows', [2], [3, 4]),
    scalarInt('two', 2),
    { name: 'l0', op: 'TensorListFromTensor', input: ['x', 'scalar_shape'], attr: withShape },
    { name: 'l1', op: 'TensorListFromTensor', input: ['y', 'scalar_shape'], attr: withShape },
    { name: 'batch', op: 'Pack', input: ['l0', 'l1'], attr: { T: { type: 'DT_VARIANT' }, N: { i: 2 }, axis: { i: 0 } } },
  ];
  const feeds = { x: createTensor('float32', [2], Float32Array.of(1, 2)), y: createTensor('float32', [1], Float32Array.of(-1)) };
  const unpack = (name: string, batch: string): NodeJson => ({
    name,
    op: 'Unpack',
    input: [batch],
    attr: { T: { type: 'DT_VARIANT' }, num: { i: 2 }, axis: { i: 0 } },
  });

  it('PushBackBatch pushes row b onto list b and ConcatLists joins lists pairwise, as TensorFlow does (by hand)', async () => {
    // after TensorFlow's list_ops_test testPushBackBatch
    const read = await runGraph(
      [
        ...lists,
        { name: 'push', op: 'TensorListPushBackBatch', input: ['batch', 'pushed_rows'], attr: et },
        unpack('pushed', 'push'),
        unpack('original', 'batch'),
        // [l0, reserved] ++ [l1, l0]: a slot never written stays one (stacked as zeros)
        { name: 'reserved', op: 'TensorListReserve', input: ['scalar_shape', 'two'], attr: withShape },
        { name: 'batch_a', op: 'Pack', input: ['l0', 'reserved'], attr: { T: { type: 'DT_VARIANT' }, N: { i: 2 }, axis: { i: 0 } } },
        { name: 'batch_b', op: 'Pack', input: ['l1', 'l0'], attr: { T: { type: 'DT_VARIANT' }, N: { i: 2 }, axis: { i: 0 } } },
        { name: 'joined', op: 'TensorListConcatLists', input: ['batch_a', 'batch_b'], attr: et },
        unpack('joined_lists', 'joined'),
        { name: 'joined_length', op: 'TensorListLength', input: ['joined_lists:1'] },
        stack('s0', 'pushed'),
        stack('s1', 'pushed:1'),
        stack('o0', 'original'),
        stack('o1', 'original:1'),
        stack('j0', 'joined_lists'),
        stack('j1', 'joined_lists:1'),
        { name: 'p0', op: 'Identity', input: ['s0'], attr: F },
        { name: 'p1', op: 'Identity', input: ['s1'], attr: F },
        { name: 'q0', op: 'Identity', input: ['o0'], attr: F },
        { name: 'q1', op: 'Identity', input: ['o1'], attr: F },
        { name: 'r0', op: 'Identity', input: ['j0'], attr: F },
        { name: 'r1', op: 'Identity', input: ['j1'], attr: F },
        { name: 'r1_length', op: 'Identity', input: ['joined_length'], attr: I },
      ],
      feeds,
    );
    const f = (data: number[]) => ({ type: 'float32', dims: [data.length], data });
    expect(read('p0')).toEqual(f([1, 2, 3]));
    expect(read('p1')).toEqual(f([-1, 4]));
    // the lists packed are not changed by the push
    expect(read('q0')).toEqual(f([1, 2]));
    expect(read('q1')).toEqual(f([-1]));
    expect(read('r0')).toEqual(f([1, 2, -1]));
    expect(read('r1')).toEqual(f([0, 0, 1, 2]));
    expect(read('r1_length')).toEqual({ type: 'int32', dims: [], data: [4] });
  }, 120_000);

  it('fails to parse, naming the node, when another op reads a batch or the pushed rows do not match it', async () => {
    const cases: { nodes: NodeJson[]; message: RegExp }[] = [
      {
        nodes: [
          { name: 'bad', op: 'TensorListLength', input: ['batch'] },
          { name: 'out', op: 'Identity', input: ['bad'], attr: I },
        ],
        message: /\bbad\b[\s\S]*a batch of TensorLists is read only by/,
      },
      {
        nodes: [
          constNode('three_rows', [3], [3, 4, 5]),
          { name: 'bad', op: 'TensorListPushBackBatch', input: ['batch', 'three_rows'], attr: et },
          unpack('out_lists', 'bad'),
          stack('out', 'out_lists'),
        ],
        message: /\bbad\b[\s\S]*3 rows for a batch of 2 lists/,
      },
      {
        nodes: [
          { name: 'bad', op: 'TensorListPushBackBatch', input: ['l0', 'pushed_rows'], attr: et },
          unpack('out_lists', 'bad'),
          stack('out', 'out_lists'),
        ],
        message: /\bbad\b[\s\S]*must be a batch of TensorLists/,
      },
    ];
    for (const { nodes, message } of cases) {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-list-batch-')), 'g.pb');
      writeFileSync(file, graphBytes([...lists, ...nodes]));
      await expect(parseModel(file)).rejects.toThrow(message);
    }
  }, 120_000);
});
