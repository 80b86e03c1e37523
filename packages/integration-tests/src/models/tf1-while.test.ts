// TF1 while loops (Enter/Merge/Switch/LoopCond/NextIteration/Exit frames, as tf.while_loop lowers
// them) become Loop subgraphs and match TensorFlow.js 4.22.0 (wasm backend) on the same GraphDef:
// a counter loop with a loop invariant, TensorArrays (unstack → read → write → stack), TensorLists
// (scatters, resizes, concats with lengths, splits; also in a loop),
// and a loop nested in another's body.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import { type Graph, type HostTensor, TsgeError, createTensor, isHostTensor } from '@tsge/metadef';
import { compareTensors, createRandom, randomTensor } from '@tsge/run';
import { describe, expect, it } from 'vitest';
import { type NodeJson, TF_PROTO, constNode, graphBytes, placeholder } from './tf-graph-fixture.js';
import { graphDefToArtifacts, runTfjsGraph } from './tfjs-reference.js';

const F = { T: { type: 'DT_FLOAT' } };
const I = { T: { type: 'DT_INT32' } };
type T = typeof F;

interface LoopVar {
  readonly init: string;
  readonly T: T;
}

/**
 * The nodes tf.while_loop writes for frame `p`: loop values `vars`, invariants `invariants` (Enter
 * is_constant), a condition and a body written by the callbacks over the values' and invariants'
 * names in the frame. Exits are `${p}/Exit_k`.
 */
function whileLoop(
  p: string,
  vars: readonly LoopVar[],
  invariants: readonly LoopVar[],
  cond: (values: string[], inv: string[]) => { nodes: NodeJson[]; out: string },
  body: (values: string[], inv: string[]) => { nodes: NodeJson[]; next: string[] },
): NodeJson[] {
  const frame = { frame_name: { s: `${p}/while_context` }, parallel_iterations: { i: 10 } };
  const nodes: NodeJson[] = [];
  vars.forEach((v, k) => {
    nodes.push({ name: `${p}/Enter_${k}`, op: 'Enter', input: [v.init], attr: { ...v.T, ...frame, is_constant: { b: false } } });
    nodes.push({
      name: `${p}/Merge_${k}`,
      op: 'Merge',
      input: [`${p}/Enter_${k}`, `${p}/NextIteration_${k}`],
      attr: { ...v.T, N: { i: 2 } },
    });
  });
  const inv = invariants.map((v, j) => {
    nodes.push({ name: `${p}/inv_${j}`, op: 'Enter', input: [v.init], attr: { ...v.T, ...frame, is_constant: { b: true } } });
    return `${p}/inv_${j}`;
  });
  const c = cond(
    vars.map((_, k) => `${p}/Merge_${k}`),
    inv,
  );
  nodes.push(...c.nodes, { name: `${p}/LoopCond`, op: 'LoopCond', input: [c.out] });
  vars.forEach((v, k) => {
    nodes.push({ name: `${p}/Switch_${k}`, op: 'Switch', input: [`${p}/Merge_${k}`, `${p}/LoopCond`], attr: v.T });
    nodes.push({ name: `${p}/Identity_${k}`, op: 'Identity', input: [`${p}/Switch_${k}:1`], attr: v.T });
    nodes.push({ name: `${p}/Exit_${k}`, op: 'Exit', input: [`${p}/Switch_${k}`], attr: v.T });
  });
  const b = body(
    vars.map((_, k) => `${p}/Identity_${k}`),
    inv,
  );
  nodes.push(...b.nodes);
  vars.forEach((v, k) => {
    nodes.push({ name: `${p}/NextIteration_${k}`, op: 'NextIteration', input: [b.next[k] as string], attr: v.T });
  });
  return nodes;
}

const binary = (name: string, op: string, a: string, b: string, attr: T | Record<string, never> = F): NodeJson => ({
  name,
  op,
  input: [a, b],
  attr,
});
const scalarInt = (name: string, v: number, control?: string): NodeJson => ({
  ...constNode(name, [], [v], 'DT_INT32'),
  ...(control ? { input: [`^${control}`] } : {}),
});

/** acc = acc * 0.5 + w for i in 0..n (w a loop invariant); outputs acc and i. */
function counterGraph(): NodeJson[] {
  return [
    placeholder('x', [2, 3]),
    placeholder('n', [], 'DT_INT32'),
    constNode('w', [3], [0.25, -1, 2]),
    scalarInt('zero', 0),
    ...whileLoop(
      'loop',
      [
        { init: 'zero', T: I },
        { init: 'x', T: F },
      ],
      [
        { init: 'n', T: I },
        { init: 'w', T: F },
      ],
      ([i], [n]) => ({ nodes: [binary('loop/Less', 'Less', i as string, n as string, I)], out: 'loop/Less' }),
      ([i, acc], [, w]) => ({
        nodes: [
          scalarInt('loop/one', 1, i),
          binary('loop/add_i', 'AddV2', i as string, 'loop/one', I),
          { ...constNode('loop/half', [], [0.5]), input: [`^${i}`] },
          binary('loop/mul', 'Mul', acc as string, 'loop/half'),
          binary('loop/add', 'AddV2', 'loop/mul', w as string),
        ],
        next: ['loop/add_i', 'loop/add'],
      }),
    ),
    { name: 'acc', op: 'Identity', input: ['loop/Exit_1'], attr: F },
    { name: 'count', op: 'Identity', input: ['loop/Exit_0'], attr: I },
  ];
}

/**
 * rows of x unstacked into a TensorArray, y_i = relu(2·x_i − 1) + running sum, stacked back; outputs
 * y and the sum. With `elementShape` the arrays declare it (their slots are zeros of it until written).
 */
function tensorArrayGraph(elementShape?: readonly number[]): NodeJson[] {
  const ta = (name: string, size: string): NodeJson => ({
    name,
    op: 'TensorArrayV3',
    input: [size],
    attr: {
      dtype: { type: 'DT_FLOAT' },
      element_shape: { shape: elementShape ? { dim: elementShape.map((size) => ({ size })) } : { unknownRank: true } },
      dynamic_size: { b: false },
      clear_after_read: { b: true },
      identical_element_shapes: { b: true },
      tensor_array_name: { s: '' },
    },
  });
  const r = { T: { type: 'DT_RESOURCE' } } as unknown as T;
  return [
    placeholder('x', [4, 3]),
    constNode('shape_begin', [1], [0], 'DT_INT32'),
    constNode('shape_end', [1], [1], 'DT_INT32'),
    { name: 'shape', op: 'Shape', input: ['x'], attr: { ...F, out_type: { type: 'DT_INT32' } } },
    {
      name: 'size',
      op: 'StridedSlice',
      input: ['shape', 'shape_begin', 'shape_end', 'shape_end'],
      attr: { T: { type: 'DT_INT32' }, Index: { type: 'DT_INT32' }, shrink_axis_mask: { i: 1 } },
    },
    ta('in_ta', 'size'),
    ta('out_ta', 'size'),
    scalarInt('zero', 0),
    scalarInt('step', 1),
    { name: 'range', op: 'Range', input: ['zero', 'size', 'step'], attr: { Tidx: { type: 'DT_INT32' } } },
    { name: 'unstack', op: 'TensorArrayScatterV3', input: ['in_ta', 'range', 'x', 'in_ta:1'], attr: F },
    constNode('sum0', [3], [0, 0, 0]),
    ...whileLoop(
      'loop',
      [
        { init: 'zero', T: I },
        { init: 'out_ta:1', T: F },
        { init: 'sum0', T: F },
      ],
      [
        { init: 'size', T: I },
        { init: 'in_ta', T: r },
        { init: 'unstack', T: F },
        { init: 'out_ta', T: r },
      ],
      ([i], [size]) => ({ nodes: [binary('loop/Less', 'Less', i as string, size as string, I)], out: 'loop/Less' }),
      ([i, flow, sum], [, inTa, inFlow, outTa]) => ({
        nodes: [
          {
            name: 'loop/read',
            op: 'TensorArrayReadV3',
            input: [inTa as string, i as string, inFlow as string],
            attr: { dtype: { type: 'DT_FLOAT' } },
          },
          { ...constNode('loop/two', [], [2]), input: [`^${i}`] },
          { ...constNode('loop/one_f', [], [1]), input: [`^${i}`] },
          binary('loop/mul', 'Mul', 'loop/read', 'loop/two'),
          binary('loop/sub', 'Sub', 'loop/mul', 'loop/one_f'),
          { name: 'loop/relu', op: 'Relu', input: ['loop/sub'], attr: F },
          binary('loop/y', 'AddV2', 'loop/relu', sum as string),
          binary('loop/sum', 'AddV2', sum as string, 'loop/read'),
          { name: 'loop/write', op: 'TensorArrayWriteV3', input: [outTa as string, i as string, 'loop/y', flow as string], attr: F },
          scalarInt('loop/one', 1, i),
          binary('loop/add_i', 'AddV2', i as string, 'loop/one', I),
        ],
        next: ['loop/add_i', 'loop/write', 'loop/sum'],
      }),
    ),
    { name: 'out_size', op: 'TensorArraySizeV3', input: ['out_ta', 'loop/Exit_1'] },
    { name: 'out_range', op: 'Range', input: ['zero', 'out_size', 'step'], attr: { Tidx: { type: 'DT_INT32' } } },
    {
      name: 'stacked',
      op: 'TensorArrayGatherV3',
      input: ['out_ta', 'out_range', 'loop/Exit_1'],
      attr: { dtype: { type: 'DT_FLOAT' }, element_shape: { shape: { dim: [{ size: 3 }] } } },
    },
    { name: 'y', op: 'Identity', input: ['stacked'], attr: F },
    { name: 'sum', op: 'Identity', input: ['loop/Exit_2'], attr: F },
  ];
}

/** for i in 0..3: for j in 0..i+1: acc = acc · 0.9 + (i + 1) · x — a loop in another loop's body. */
function nestedGraph(): NodeJson[] {
  return [
    placeholder('x', [2, 2]),
    scalarInt('zero', 0),
    scalarInt('three', 3),
    ...whileLoop(
      'outer',
      [
        { init: 'zero', T: I },
        { init: 'x', T: F },
      ],
      [
        { init: 'three', T: I },
        { init: 'x', T: F },
      ],
      ([i], [n]) => ({ nodes: [binary('outer/Less', 'Less', i as string, n as string, I)], out: 'outer/Less' }),
      ([i, acc], [, x]) => {
        const pre: NodeJson[] = [
          scalarInt('outer/one', 1, i),
          binary('outer/i1', 'AddV2', i as string, 'outer/one', I),
          { name: 'outer/i1f', op: 'Cast', input: ['outer/i1'], attr: { SrcT: { type: 'DT_INT32' }, DstT: { type: 'DT_FLOAT' } } },
          binary('outer/scaled', 'Mul', x as string, 'outer/i1f'),
          scalarInt('outer/j0', 0, i),
        ];
        const inner = whileLoop(
          'outer/inner',
          [
            { init: 'outer/j0', T: I },
            { init: acc as string, T: F },
          ],
          [
            { init: 'outer/i1', T: I },
            { init: 'outer/scaled', T: F },
          ],
          ([j], [m]) => ({ nodes: [binary('outer/inner/Less', 'Less', j as string, m as string, I)], out: 'outer/inner/Less' }),
          ([j, a], [, s]) => ({
            nodes: [
              scalarInt('outer/inner/one', 1, j),
              binary('outer/inner/j1', 'AddV2', j as string, 'outer/inner/one', I),
              { ...constNode('outer/inner/decay', [], [0.9]), input: [`^${j}`] },
              binary('outer/inner/mul', 'Mul', a as string, 'outer/inner/decay'),
              binary('outer/inner/add', 'AddV2', 'outer/inner/mul', s as string),
            ],
            next: ['outer/inner/j1', 'outer/inner/add'],
          }),
        );
        return { nodes: [...pre, ...inner], next: ['outer/i1', 'outer/inner/Exit_1'] };
      },
    ),
    { name: 'out', op: 'Identity', input: ['outer/Exit_1'], attr: F },
  ];
}

/** TensorList ops on straight-line code: push the rows of x, gather two, stack them all. */
function tensorListGraph(): NodeJson[] {
  const et = { element_dtype: { type: 'DT_FLOAT' } };
  return [
    placeholder('x', [3, 4]),
    constNode('element_shape', [1], [4], 'DT_INT32'),
    scalarInt('max', -1),
    { name: 'rows', op: 'Unpack', input: ['x'], attr: { ...F, num: { i: 3 }, axis: { i: 0 } } },
    { name: 'l0', op: 'EmptyTensorList', input: ['element_shape', 'max'], attr: { ...et, shape_type: { type: 'DT_INT32' } } },
    { name: 'l1', op: 'TensorListPushBack', input: ['l0', 'rows'], attr: et },
    { name: 'l2', op: 'TensorListPushBack', input: ['l1', 'rows:1'], attr: et },
    { name: 'l3', op: 'TensorListPushBack', input: ['l2', 'rows:2'], attr: et },
    constNode('picks', [2], [2, 0], 'DT_INT32'),
    { name: 'gathered', op: 'TensorListGather', input: ['l3', 'picks', 'element_shape'], attr: et },
    { name: 'stacked', op: 'TensorListStack', input: ['l3', 'element_shape'], attr: { ...et, num_elements: { i: -1 } } },
    { name: 'g', op: 'Identity', input: ['gathered'], attr: F },
    { name: 'all', op: 'Identity', input: ['stacked'], attr: F },
  ];
}

/** TensorArrayConcatV3 after an out-of-order scatter, TensorListLength: both run by TensorFlow.js. */
function concatLengthGraph(): NodeJson[] {
  const ta = (name: string, size: string): NodeJson => ({
    name,
    op: 'TensorArrayV3',
    input: [size],
    attr: {
      dtype: { type: 'DT_FLOAT' },
      element_shape: { shape: { unknownRank: true } },
      dynamic_size: { b: false },
      clear_after_read: { b: true },
      identical_element_shapes: { b: false },
      tensor_array_name: { s: '' },
    },
  });
  const et = { element_dtype: { type: 'DT_FLOAT' } };
  const concat = { dtype: { type: 'DT_FLOAT' }, element_shape_except0: { shape: { unknownRank: true as const } } };
  return [
    placeholder('x', [3, 2, 4]),
    placeholder('y', [3, 4]),
    scalarInt('three', 3),
    constNode('order', [3], [2, 0, 1], 'DT_INT32'),
    ta('a', 'three'),
    { name: 'scatter', op: 'TensorArrayScatterV3', input: ['a', 'order', 'x', 'a:1'], attr: F },
    { name: 'a_concat', op: 'TensorArrayConcatV3', input: ['a', 'scatter'], attr: concat },
    constNode('element_shape', [1], [4], 'DT_INT32'),
    { name: 'list', op: 'TensorListFromTensor', input: ['y', 'element_shape'], attr: { ...et, shape_type: { type: 'DT_INT32' } } },
    { name: 'length', op: 'TensorListLength', input: ['list'] },
    { name: 'joined', op: 'Identity', input: ['a_concat'], attr: F },
    { name: 'count', op: 'Identity', input: ['length'], attr: I },
  ];
}

/**
 * TensorListPopBack twice (the popped rows and what is left) and a TensorArray split into pieces of
 * 1 and 2 rows, concatenated back. Hand-checked: TensorFlow.js returns the popped tensor as output 0
 * and reshapes every split piece to one element shape.
 */
function popBackGraph(): NodeJson[] {
  const et = { element_dtype: { type: 'DT_FLOAT' } };
  const concat = { dtype: { type: 'DT_FLOAT' }, element_shape_except0: { shape: { unknownRank: true as const } } };
  return [
    placeholder('y', [3, 4]),
    // int64 values live in int64_val (constNode writes int_val)
    {
      name: 'lengths',
      op: 'Const',
      attr: {
        dtype: { type: 'DT_INT64' },
        value: { tensor: { dtype: 'DT_INT64', tensorShape: { dim: [{ size: 2 }] }, int64Val: [1, 2] } },
      },
    },
    scalarInt('two', 2),
    {
      name: 'b',
      op: 'TensorArrayV3',
      input: ['two'],
      attr: { dtype: { type: 'DT_FLOAT' }, element_shape: { shape: { unknownRank: true } }, identical_element_shapes: { b: false } },
    },
    { name: 'split', op: 'TensorArraySplitV3', input: ['b', 'y', 'lengths', 'b:1'], attr: F },
    { name: 'b_concat', op: 'TensorArrayConcatV3', input: ['b', 'split'], attr: concat },
    { name: 'rejoined', op: 'Identity', input: ['b_concat'], attr: F },
    constNode('element_shape', [1], [4], 'DT_INT32'),
    { name: 'list', op: 'TensorListFromTensor', input: ['y', 'element_shape'], attr: { ...et, shape_type: { type: 'DT_INT32' } } },
    { name: 'pop1', op: 'TensorListPopBack', input: ['list', 'element_shape'], attr: et },
    { name: 'pop2', op: 'TensorListPopBack', input: ['pop1', 'element_shape'], attr: et },
    { name: 'rest', op: 'TensorListStack', input: ['pop2', 'element_shape'], attr: { ...et, num_elements: { i: -1 } } },
    { name: 'left', op: 'TensorListLength', input: ['pop2'] },
    { name: 'last', op: 'Identity', input: ['pop1:1'], attr: F },
    { name: 'before_last', op: 'Identity', input: ['pop2:1'], attr: F },
    { name: 'remaining', op: 'Identity', input: ['rest'], attr: F },
    { name: 'count', op: 'Identity', input: ['left'], attr: I },
  ];
}

const taAttrs = (elementShape: number[], dynamic = false) => ({
  dtype: { type: 'DT_FLOAT' },
  element_shape: { shape: { dim: elementShape.map((size) => ({ size })) } },
  dynamic_size: { b: dynamic },
  clear_after_read: { b: false },
  identical_element_shapes: { b: true },
  tensor_array_name: { s: '' },
});

/**
 * Writes out of index order: a fixed-size TensorArray written at 3, 0, 2, 1 (read back at 2 and
 * gathered whole), one scattered at [2, 0, 3, 1] (read at 0) and a TensorListReserve list set at 2, 0, 1 (stacked, and its length); plus an
 * empty TensorArray and an empty TensorList stacked to [0, 3] (TensorFlow.js cannot stack those).
 */
function outOfOrderGraph(): NodeJson[] {
  const et = { element_dtype: { type: 'DT_FLOAT' } };
  const writes: NodeJson[] = [];
  let flow = 'ta:1';
  for (const [k, at] of [3, 0, 2, 1].entries()) {
    writes.push(scalarInt(`at${k}`, at), { name: `w${k}`, op: 'TensorArrayWriteV3', input: ['ta', `at${k}`, `rows:${k}`, flow], attr: F });
    flow = `w${k}`;
  }
  const sets: NodeJson[] = [];
  let list = 'list0';
  for (const [k, at] of [2, 0, 1].entries()) {
    sets.push(scalarInt(`set_at${k}`, at), {
      name: `set${k}`,
      op: 'TensorListSetItem',
      input: [list, `set_at${k}`, `rows:${k}`],
      attr: et,
    });
    list = `set${k}`;
  }
  return [
    placeholder('x', [4, 3]),
    { name: 'rows', op: 'Unpack', input: ['x'], attr: { ...F, num: { i: 4 }, axis: { i: 0 } } },
    scalarInt('four', 4),
    scalarInt('three', 3),
    scalarInt('zero', 0),
    scalarInt('one', 1),
    scalarInt('two', 2),
    { name: 'ta', op: 'TensorArrayV3', input: ['four'], attr: taAttrs([3]) },
    ...writes,
    constNode('order', [4], [2, 0, 3, 1], 'DT_INT32'),
    { name: 'ta2', op: 'TensorArrayV3', input: ['four'], attr: taAttrs([3]) },
    { name: 'scatter', op: 'TensorArrayScatterV3', input: ['ta2', 'order', 'x', 'ta2:1'], attr: F },
    { name: 'scatter_read', op: 'TensorArrayReadV3', input: ['ta2', 'zero', 'scatter'], attr: { dtype: { type: 'DT_FLOAT' } } },
    { name: 'read2', op: 'TensorArrayReadV3', input: ['ta', 'two', flow], attr: { dtype: { type: 'DT_FLOAT' } } },
    { name: 'size', op: 'TensorArraySizeV3', input: ['ta', flow] },
    { name: 'all_i', op: 'Range', input: ['zero', 'size', 'one'], attr: { Tidx: { type: 'DT_INT32' } } },
    {
      name: 'gathered',
      op: 'TensorArrayGatherV3',
      input: ['ta', 'all_i', flow],
      attr: { dtype: { type: 'DT_FLOAT' }, element_shape: { shape: { dim: [{ size: 3 }] } } },
    },
    constNode('element_shape', [1], [3], 'DT_INT32'),
    { name: 'list0', op: 'TensorListReserve', input: ['element_shape', 'three'], attr: { ...et, shape_type: { type: 'DT_INT32' } } },
    ...sets,
    { name: 'list_stack', op: 'TensorListStack', input: [list, 'element_shape'], attr: { ...et, num_elements: { i: -1 } } },
    { name: 'list_length', op: 'TensorListLength', input: [list] },
    { name: 'empty_ta', op: 'TensorArrayV3', input: ['zero'], attr: taAttrs([3]) },
    { name: 'empty_size', op: 'TensorArraySizeV3', input: ['empty_ta', 'empty_ta:1'] },
    { name: 'empty_i', op: 'Range', input: ['zero', 'empty_size', 'one'], attr: { Tidx: { type: 'DT_INT32' } } },
    {
      name: 'empty_gathered',
      op: 'TensorArrayGatherV3',
      input: ['empty_ta', 'empty_i', 'empty_ta:1'],
      attr: { dtype: { type: 'DT_FLOAT' }, element_shape: { shape: { dim: [{ size: 3 }] } } },
    },
    scalarInt('max', -1),
    { name: 'empty_list', op: 'EmptyTensorList', input: ['element_shape', 'max'], attr: { ...et, shape_type: { type: 'DT_INT32' } } },
    { name: 'empty_stack', op: 'TensorListStack', input: ['empty_list', 'element_shape'], attr: { ...et, num_elements: { i: -1 } } },
    { name: 'ta_read', op: 'Identity', input: ['read2'], attr: F },
    { name: 'scattered0', op: 'Identity', input: ['scatter_read'], attr: F },
    { name: 'ta_all', op: 'Identity', input: ['gathered'], attr: F },
    { name: 'list_all', op: 'Identity', input: ['list_stack'], attr: F },
    { name: 'list_count', op: 'Identity', input: ['list_length'], attr: I },
    { name: 'empty_all', op: 'Identity', input: ['empty_gathered'], attr: F },
    { name: 'empty_list_all', op: 'Identity', input: ['empty_stack'], attr: F },
  ];
}

/** A fixed-size TensorArray of 2 scattered into at [0, `at`] (out of range: 2, -1). */
function outOfRangeScatterGraph(at: number): NodeJson[] {
  return [
    placeholder('y', [2, 3]),
    scalarInt('two', 2),
    scalarInt('zero', 0),
    constNode('at', [2], [0, at], 'DT_INT32'),
    { name: 'ta', op: 'TensorArrayV3', input: ['two'], attr: taAttrs([3]) },
    { name: 'bad', op: 'TensorArrayScatterV3', input: ['ta', 'at', 'y', 'ta:1'], attr: F },
    { name: 'r0', op: 'TensorArrayReadV3', input: ['ta', 'zero', 'bad'], attr: { dtype: { type: 'DT_FLOAT' } } },
    { name: 'out', op: 'Identity', input: ['r0'], attr: F },
  ];
}

/** A fixed-size TensorArray of 2 written or read at `at` (out of range: 2, 5, -1). */
function outOfRangeGraph(at: number, readOnly: boolean): NodeJson[] {
  return [
    placeholder('y', [3]),
    scalarInt('two', 2),
    scalarInt('zero', 0),
    scalarInt('at', at),
    { name: 'ta', op: 'TensorArrayV3', input: ['two'], attr: taAttrs([3]) },
    { name: 'w0', op: 'TensorArrayWriteV3', input: ['ta', 'zero', 'y', 'ta:1'], attr: F },
    readOnly
      ? { name: 'bad', op: 'TensorArrayReadV3', input: ['ta', 'at', 'w0'], attr: { dtype: { type: 'DT_FLOAT' } } }
      : { name: 'bad', op: 'TensorArrayWriteV3', input: ['ta', 'at', 'y', 'w0'], attr: F },
    ...(readOnly
      ? [{ name: 'out', op: 'Identity', input: ['bad'], attr: F }]
      : [
          { name: 'r0', op: 'TensorArrayReadV3', input: ['ta', 'zero', 'bad'], attr: { dtype: { type: 'DT_FLOAT' } } },
          { name: 'out', op: 'Identity', input: ['r0'], attr: F },
        ]),
  ];
}

const readF = { dtype: { type: 'DT_FLOAT' } };
const gatherF = (shape?: number[]) => ({
  dtype: { type: 'DT_FLOAT' },
  element_shape: { shape: shape ? { dim: shape.map((size) => ({ size })) } : { unknownRank: true as const } },
});
const dynamicAttrs = (elementShape?: number[]) => ({
  ...taAttrs(elementShape ?? [], true),
  element_shape: { shape: elementShape ? { dim: elementShape.map((size) => ({ size })) } : { unknownRank: true as const } },
});

/**
 * Dynamic-size TensorArrays written out of index order: one of unknown element shape written at
 * 2, 0, 3, 1 (it grows to 4), one of element shape [3] scattered at [4, 1] (it grows to 5) and then
 * written at 0, 2 and 3; each gathered whole, sized and read.
 */
function dynamicGraph(): NodeJson[] {
  const nodes: NodeJson[] = [
    placeholder('x', [4, 3]),
    placeholder('y', [2, 3]),
    { name: 'rows', op: 'Unpack', input: ['x'], attr: { ...F, num: { i: 4 }, axis: { i: 0 } } },
    scalarInt('zero', 0),
    scalarInt('one', 1),
    scalarInt('three', 3),
    { name: 'ta', op: 'TensorArrayV3', input: ['zero'], attr: dynamicAttrs() },
  ];
  let flow = 'ta:1';
  for (const [k, at] of [2, 0, 3, 1].entries()) {
    nodes.push(scalarInt(`at${k}`, at), { name: `w${k}`, op: 'TensorArrayWriteV3', input: ['ta', `at${k}`, `rows:${k}`, flow], attr: F });
    flow = `w${k}`;
  }
  nodes.push(
    { name: 'size', op: 'TensorArraySizeV3', input: ['ta', flow] },
    { name: 'all_i', op: 'Range', input: ['zero', 'size', 'one'], attr: { Tidx: { type: 'DT_INT32' } } },
    { name: 'gathered', op: 'TensorArrayGatherV3', input: ['ta', 'all_i', flow], attr: gatherF() },
    { name: 'read3', op: 'TensorArrayReadV3', input: ['ta', 'three', flow], attr: readF },
    // rows of their own: TensorFlow.js disposes what an array held when the array is done
    { name: 'rows_b', op: 'Unpack', input: ['x'], attr: { ...F, num: { i: 4 }, axis: { i: 0 } } },
    { name: 'tb', op: 'TensorArrayV3', input: ['one'], attr: dynamicAttrs([3]) },
    constNode('order', [2], [4, 1], 'DT_INT32'),
    { name: 'scatter', op: 'TensorArrayScatterV3', input: ['tb', 'order', 'y', 'tb:1'], attr: F },
  );
  flow = 'scatter';
  for (const [k, at] of [0, 2, 3].entries()) {
    nodes.push(scalarInt(`bt${k}`, at), { name: `v${k}`, op: 'TensorArrayWriteV3', input: ['tb', `bt${k}`, `rows_b:${k}`, flow], attr: F });
    flow = `v${k}`;
  }
  nodes.push(
    { name: 'b_size', op: 'TensorArraySizeV3', input: ['tb', flow] },
    { name: 'b_i', op: 'Range', input: ['zero', 'b_size', 'one'], attr: { Tidx: { type: 'DT_INT32' } } },
    { name: 'b_gathered', op: 'TensorArrayGatherV3', input: ['tb', 'b_i', flow], attr: gatherF([3]) },
    scalarInt('four', 4),
    { name: 'b_read4', op: 'TensorArrayReadV3', input: ['tb', 'four', flow], attr: readF },
    { name: 'a_all', op: 'Identity', input: ['gathered'], attr: F },
    { name: 'a_count', op: 'Identity', input: ['size'], attr: I },
    { name: 'a_last', op: 'Identity', input: ['read3'], attr: F },
    { name: 'b_all', op: 'Identity', input: ['b_gathered'], attr: F },
    { name: 'b_count', op: 'Identity', input: ['b_size'], attr: I },
    { name: 'b_four', op: 'Identity', input: ['b_read4'], attr: F },
  );
  return nodes;
}

/** A while loop that writes 2·x_i at n − 1 − i of a dynamic-size TensorArray (back to front). */
function reverseLoopGraph(): NodeJson[] {
  const r = { T: { type: 'DT_RESOURCE' } } as unknown as T;
  const fixed = { ...taAttrs([3]), element_shape: { shape: { dim: [{ size: 3 }] } } };
  return [
    placeholder('x', [4, 3]),
    scalarInt('n', 4),
    scalarInt('zero', 0),
    scalarInt('step', 1),
    { name: 'in_ta', op: 'TensorArrayV3', input: ['n'], attr: fixed },
    { name: 'range', op: 'Range', input: ['zero', 'n', 'step'], attr: { Tidx: { type: 'DT_INT32' } } },
    { name: 'unstack', op: 'TensorArrayScatterV3', input: ['in_ta', 'range', 'x', 'in_ta:1'], attr: F },
    { name: 'out_ta', op: 'TensorArrayV3', input: ['zero'], attr: dynamicAttrs() },
    ...whileLoop(
      'loop',
      [
        { init: 'zero', T: I },
        { init: 'out_ta:1', T: F },
      ],
      [
        { init: 'n', T: I },
        { init: 'in_ta', T: r },
        { init: 'unstack', T: F },
        { init: 'out_ta', T: r },
      ],
      ([i], [n]) => ({ nodes: [binary('loop/Less', 'Less', i as string, n as string, I)], out: 'loop/Less' }),
      ([i, flow], [n, inTa, inFlow, outTa]) => ({
        nodes: [
          { name: 'loop/read', op: 'TensorArrayReadV3', input: [inTa as string, i as string, inFlow as string], attr: readF },
          { ...constNode('loop/two', [], [2]), input: [`^${i}`] },
          binary('loop/y', 'Mul', 'loop/read', 'loop/two'),
          scalarInt('loop/one', 1, i),
          binary('loop/left', 'Sub', n as string, i as string, I),
          binary('loop/at', 'Sub', 'loop/left', 'loop/one', I),
          { name: 'loop/write', op: 'TensorArrayWriteV3', input: [outTa as string, 'loop/at', 'loop/y', flow as string], attr: F },
          binary('loop/add_i', 'AddV2', i as string, 'loop/one', I),
        ],
        next: ['loop/add_i', 'loop/write'],
      }),
    ),
    { name: 'out_size', op: 'TensorArraySizeV3', input: ['out_ta', 'loop/Exit_1'] },
    { name: 'out_range', op: 'Range', input: ['zero', 'out_size', 'step'], attr: { Tidx: { type: 'DT_INT32' } } },
    { name: 'stacked', op: 'TensorArrayGatherV3', input: ['out_ta', 'out_range', 'loop/Exit_1'], attr: gatherF([3]) },
    { name: 'y', op: 'Identity', input: ['stacked'], attr: F },
    { name: 'count', op: 'Identity', input: ['out_size'], attr: I },
  ];
}

/** A TensorArray written twice at 1 (TensorFlow refuses the second write). */
function doubleWriteGraph(dynamic: boolean): NodeJson[] {
  return [
    placeholder('y', [3]),
    scalarInt('three', 3),
    scalarInt('one', 1),
    { name: 'ta', op: 'TensorArrayV3', input: ['three'], attr: dynamic ? dynamicAttrs() : taAttrs([3]) },
    { name: 'w', op: 'TensorArrayWriteV3', input: ['ta', 'one', 'y', 'ta:1'], attr: F },
    { name: 'bad', op: 'TensorArrayWriteV3', input: ['ta', 'one', 'y', 'w'], attr: F },
    { name: 'r', op: 'TensorArrayReadV3', input: ['ta', 'one', 'bad'], attr: readF },
    { name: 'out', op: 'Identity', input: ['r'], attr: F },
  ];
}

/** A TensorArray (fixed size 3, or dynamic) written at 2 and read at `at`, never written. */
function unwrittenReadGraph(dynamic: boolean, at: number): NodeJson[] {
  return [
    placeholder('y', [3]),
    scalarInt('three', 3),
    scalarInt('two', 2),
    scalarInt('at', at),
    { name: 'ta', op: 'TensorArrayV3', input: [dynamic ? 'two' : 'three'], attr: dynamic ? dynamicAttrs() : taAttrs([3]) },
    { name: 'w', op: 'TensorArrayWriteV3', input: ['ta', 'two', 'y', 'ta:1'], attr: F },
    { name: 'bad', op: 'TensorArrayReadV3', input: ['ta', 'at', 'w'], attr: readF },
    { name: 'out', op: 'Identity', input: ['bad'], attr: F },
  ];
}

/**
 * TensorListReserve lists of 4 set at 2 only: of element shape [3] (GetItem of slots 1 and 2, the
 * stack, the length) and of unknown element shape (before the write: its length, a GetItem and a
 * stack given element shape [3]; after it: its stack, a PopBack and the length left).
 */
function reservedListGraph(): NodeJson[] {
  const et = { element_dtype: { type: 'DT_FLOAT' } };
  const reserve = { ...et, shape_type: { type: 'DT_INT32' } };
  const stack = { ...et, num_elements: { i: -1 } };
  return [
    placeholder('y', [3]),
    constNode('element_shape', [1], [3], 'DT_INT32'),
    constNode('unknown_shape', [1], [-1], 'DT_INT32'),
    scalarInt('four', 4),
    scalarInt('one', 1),
    scalarInt('two', 2),
    { name: 'list0', op: 'TensorListReserve', input: ['element_shape', 'four'], attr: reserve },
    { name: 'list', op: 'TensorListSetItem', input: ['list0', 'two', 'y'], attr: et },
    { name: 'get1', op: 'TensorListGetItem', input: ['list', 'one', 'element_shape'], attr: et },
    { name: 'get2', op: 'TensorListGetItem', input: ['list', 'two', 'element_shape'], attr: et },
    { name: 'stack', op: 'TensorListStack', input: ['list', 'element_shape'], attr: stack },
    { name: 'length', op: 'TensorListLength', input: ['list'] },
    { name: 'u0', op: 'TensorListReserve', input: ['unknown_shape', 'four'], attr: reserve },
    { name: 'u_length0', op: 'TensorListLength', input: ['u0'] },
    { name: 'u_get0', op: 'TensorListGetItem', input: ['u0', 'one', 'element_shape'], attr: et },
    { name: 'u_stack0', op: 'TensorListStack', input: ['u0', 'element_shape'], attr: stack },
    { name: 'u', op: 'TensorListSetItem', input: ['u0', 'two', 'y'], attr: et },
    { name: 'u_stack', op: 'TensorListStack', input: ['u', 'unknown_shape'], attr: stack },
    { name: 'u_pop', op: 'TensorListPopBack', input: ['u', 'unknown_shape'], attr: et },
    { name: 'u_left', op: 'TensorListLength', input: ['u_pop'] },
    { name: 'unwritten', op: 'Identity', input: ['get1'], attr: F },
    { name: 'written', op: 'Identity', input: ['get2'], attr: F },
    { name: 'all', op: 'Identity', input: ['stack'], attr: F },
    { name: 'count', op: 'Identity', input: ['length'], attr: I },
    { name: 'u_count0', op: 'Identity', input: ['u_length0'], attr: I },
    { name: 'u_zeros0', op: 'Identity', input: ['u_get0'], attr: F },
    { name: 'u_all0', op: 'Identity', input: ['u_stack0'], attr: F },
    { name: 'u_all', op: 'Identity', input: ['u_stack'], attr: F },
    { name: 'u_popped', op: 'Identity', input: ['u_pop:1'], attr: F },
    { name: 'u_count', op: 'Identity', input: ['u_left'], attr: I },
  ];
}

const int64Const = (name: string, data: readonly number[]): NodeJson => ({
  name,
  op: 'Const',
  attr: {
    dtype: { type: 'DT_INT64' },
    value: { tensor: { dtype: 'DT_INT64', tensorShape: { dim: [{ size: data.length }] }, int64Val: [...data] } },
  },
});
const listAttrs = { element_dtype: { type: 'DT_FLOAT' } };
const listShapeAttrs = { ...listAttrs, shape_type: { type: 'DT_INT32' } };
const stackAttrs = { ...listAttrs, num_elements: { i: -1 } };
const shapeAttr = (dims: readonly number[]) => ({ shape: { dim: dims.map((size) => ({ size })) } });

/**
 * Scatters and resizes TensorFlow.js runs too: TensorListScatter at [2, 0, 1] (stacked),
 * TensorListScatterV2 with num_elements -1 (stacked, its length) and 3 (gathered at [2, 0]), a list
 * resized down to 2 (stacked), a TensorListSplit into rows (its length, joined back by
 * TensorListConcat), and the rows of z concatenated by TensorListConcat. (TensorFlow.js reads
 * TensorListConcatV2's element shape from an attribute, not its input, and reshapes every element,
 * split pieces too, to one shape: V2 and pieces of different lengths are checked by hand below.)
 */
function scatterResizeGraph(): NodeJson[] {
  return [
    placeholder('x', [3, 4]),
    placeholder('z', [3, 2, 4]),
    constNode('element_shape', [1], [4], 'DT_INT32'),
    constNode('row_shape', [2], [-1, 4], 'DT_INT32'),
    constNode('order', [3], [2, 0, 1], 'DT_INT32'),
    constNode('order2', [3], [1, 2, 0], 'DT_INT32'),
    constNode('picks', [2], [2, 0], 'DT_INT32'),
    scalarInt('minus_one', -1),
    scalarInt('three', 3),
    scalarInt('two', 2),
    int64Const('split_lengths', [1, 1, 1]),
    { name: 's1', op: 'TensorListScatter', input: ['x', 'order', 'element_shape'], attr: listShapeAttrs },
    { name: 's1_stack', op: 'TensorListStack', input: ['s1', 'element_shape'], attr: stackAttrs },
    { name: 's2', op: 'TensorListScatterV2', input: ['x', 'order2', 'element_shape', 'minus_one'], attr: listShapeAttrs },
    { name: 's2_stack', op: 'TensorListStack', input: ['s2', 'element_shape'], attr: stackAttrs },
    { name: 's2_length', op: 'TensorListLength', input: ['s2'] },
    { name: 's3', op: 'TensorListScatterV2', input: ['x', 'order', 'element_shape', 'three'], attr: listShapeAttrs },
    { name: 's3_gather', op: 'TensorListGather', input: ['s3', 'picks', 'element_shape'], attr: listAttrs },
    { name: 'list', op: 'TensorListFromTensor', input: ['x', 'element_shape'], attr: listShapeAttrs },
    { name: 'shrunk', op: 'TensorListResize', input: ['list', 'two'] },
    { name: 'shrunk_stack', op: 'TensorListStack', input: ['shrunk', 'element_shape'], attr: stackAttrs },
    // of unknown rank (TensorFlow.js merges a split's element shape with the rows' shape minus dim 0)
    constNode('any_shape', [], [-1], 'DT_INT32'),
    { name: 'split', op: 'TensorListSplit', input: ['x', 'any_shape', 'split_lengths'], attr: { ...listShapeAttrs } },
    { name: 'split_length', op: 'TensorListLength', input: ['split'] },
    { name: 'rejoined', op: 'TensorListConcat', input: ['split'], attr: { ...listAttrs, element_shape: shapeAttr([1, 4]) } },
    { name: 'zlist', op: 'TensorListFromTensor', input: ['z', 'row_shape'], attr: listShapeAttrs },
    { name: 'zjoined', op: 'TensorListConcat', input: ['zlist'], attr: { ...listAttrs, element_shape: shapeAttr([2, 4]) } },
    { name: 'scattered', op: 'Identity', input: ['s1_stack'], attr: F },
    { name: 'scattered2', op: 'Identity', input: ['s2_stack'], attr: F },
    { name: 'count2', op: 'Identity', input: ['s2_length'], attr: I },
    { name: 'gathered3', op: 'Identity', input: ['s3_gather'], attr: F },
    { name: 'truncated', op: 'Identity', input: ['shrunk_stack'], attr: F },
    { name: 'pieces', op: 'Identity', input: ['split_length'], attr: I },
    { name: 'joined', op: 'Identity', input: ['rejoined'], attr: F },
    { name: 'z_joined', op: 'Identity', input: ['zjoined'], attr: F },
  ];
}

/**
 * A while loop that grows a TensorList by one slot (TensorListResize to i + 1) and sets 2·x_i
 * there, from an EmptyTensorList; after it, the list stacked, concatenated and counted.
 */
function resizeLoopGraph(): NodeJson[] {
  const v = { T: { type: 'DT_VARIANT' } } as unknown as T;
  return [
    placeholder('x', [4, 3]),
    constNode('element_shape', [1], [3], 'DT_INT32'),
    scalarInt('max', -1),
    scalarInt('zero', 0),
    scalarInt('n', 4),
    { name: 'empty', op: 'EmptyTensorList', input: ['element_shape', 'max'], attr: listShapeAttrs },
    ...whileLoop(
      'loop',
      [
        { init: 'zero', T: I },
        { init: 'empty', T: v },
      ],
      [
        { init: 'n', T: I },
        { init: 'x', T: F },
      ],
      ([i], [n]) => ({ nodes: [binary('loop/Less', 'Less', i as string, n as string, I)], out: 'loop/Less' }),
      ([i, list], [, x]) => ({
        nodes: [
          scalarInt('loop/one', 1, i),
          scalarInt('loop/axis', 0, i),
          binary('loop/add_i', 'AddV2', i as string, 'loop/one', I),
          { name: 'loop/grown', op: 'TensorListResize', input: [list as string, 'loop/add_i'] },
          {
            name: 'loop/row',
            op: 'GatherV2',
            input: [x as string, i as string, 'loop/axis'],
            attr: { Tparams: { type: 'DT_FLOAT' }, Tindices: { type: 'DT_INT32' }, Taxis: { type: 'DT_INT32' }, batch_dims: { i: 0 } },
          },
          { ...constNode('loop/two', [], [2]), input: [`^${i}`] },
          binary('loop/y', 'Mul', 'loop/row', 'loop/two'),
          { name: 'loop/set', op: 'TensorListSetItem', input: ['loop/grown', i as string, 'loop/y'], attr: listAttrs },
        ],
        next: ['loop/add_i', 'loop/set'],
      }),
    ),
    { name: 'stacked', op: 'TensorListStack', input: ['loop/Exit_1', 'element_shape'], attr: stackAttrs },
    { name: 'joined', op: 'TensorListConcat', input: ['loop/Exit_1'], attr: { ...listAttrs, element_shape: shapeAttr([3]) } },
    { name: 'length', op: 'TensorListLength', input: ['loop/Exit_1'] },
    { name: 'y', op: 'Identity', input: ['stacked'], attr: F },
    { name: 'flat', op: 'Identity', input: ['joined'], attr: F },
    { name: 'count', op: 'Identity', input: ['length'], attr: I },
  ];
}

/**
 * What TensorFlow.js does not model, checked by hand against TensorFlow's kernels: slots a scatter
 * or resize leaves unwritten, TensorListScatterIntoExistingList, and the `lengths` outputs.
 */
function unwrittenSlotsGraph(): NodeJson[] {
  const concat = { dtype: { type: 'DT_FLOAT' }, element_shape_except0: { shape: { unknownRank: true as const } } };
  return [
    placeholder('y', [2, 3]),
    placeholder('z', [3, 2, 4]),
    placeholder('count', [], 'DT_INT32'),
    constNode('element_shape', [1], [3], 'DT_INT32'),
    constNode('unknown_shape', [1], [-1], 'DT_INT32'),
    constNode('plane_shape', [2], [2, 4], 'DT_INT32'),
    constNode('at', [2], [3, 1], 'DT_INT32'),
    constNode('at_existing', [2], [3, 0], 'DT_INT32'),
    constNode('order', [3], [2, 0, 1], 'DT_INT32'),
    scalarInt('five', 5),
    scalarInt('four', 4),
    scalarInt('three', 3),
    scalarInt('two', 2),
    scalarInt('one', 1),
    scalarInt('max', -1),
    int64Const('pieces', [0, 2]),
    int64Const('no_leading', []),
    // num_elements 5: slots 0, 2 and 4 unwritten
    { name: 'v2', op: 'TensorListScatterV2', input: ['y', 'at', 'element_shape', 'five'], attr: listShapeAttrs },
    { name: 'v2_stack', op: 'TensorListStack', input: ['v2', 'element_shape'], attr: stackAttrs },
    { name: 'v2_length', op: 'TensorListLength', input: ['v2'] },
    // the same with num_elements known only at run time
    { name: 'v2_fed', op: 'TensorListScatterV2', input: ['y', 'at', 'element_shape', 'count'], attr: listShapeAttrs },
    { name: 'v2_fed_stack', op: 'TensorListStack', input: ['v2_fed', 'element_shape'], attr: stackAttrs },
    // no num_elements, no element shape: the highest index + 1 slots, shaped by the rows
    { name: 'v1', op: 'TensorListScatter', input: ['y', 'at', 'unknown_shape'], attr: listShapeAttrs },
    { name: 'v1_stack', op: 'TensorListStack', input: ['v1', 'unknown_shape'], attr: stackAttrs },
    { name: 'v1_get2', op: 'TensorListGetItem', input: ['v1', 'two', 'unknown_shape'], attr: listAttrs },
    // into a reserved list of 2, growing it to 4
    { name: 'r0', op: 'TensorListReserve', input: ['element_shape', 'two'], attr: listShapeAttrs },
    { name: 'r1', op: 'TensorListScatterIntoExistingList', input: ['r0', 'y', 'at_existing'], attr: listAttrs },
    { name: 'r1_stack', op: 'TensorListStack', input: ['r1', 'element_shape'], attr: stackAttrs },
    { name: 'r1_length', op: 'TensorListLength', input: ['r1'] },
    // resized up (unwritten zeros) and down
    { name: 'list', op: 'TensorListFromTensor', input: ['y', 'element_shape'], attr: listShapeAttrs },
    { name: 'up', op: 'TensorListResize', input: ['list', 'four'] },
    { name: 'up_stack', op: 'TensorListStack', input: ['up', 'element_shape'], attr: stackAttrs },
    { name: 'down', op: 'TensorListResize', input: ['up', 'one'] },
    { name: 'down_stack', op: 'TensorListStack', input: ['down', 'element_shape'], attr: stackAttrs },
    { name: 'empty', op: 'EmptyTensorList', input: ['element_shape', 'max'], attr: listShapeAttrs },
    { name: 'empty_up', op: 'TensorListResize', input: ['empty', 'two'] },
    { name: 'empty_up_stack', op: 'TensorListStack', input: ['empty_up', 'element_shape'], attr: stackAttrs },
    // lengths: a TensorArray split into 1 and 2 rows, one scattered with z's rows, a list of z's rows
    {
      name: 'ta',
      op: 'TensorArrayV3',
      input: ['two'],
      attr: { dtype: { type: 'DT_FLOAT' }, element_shape: { shape: { unknownRank: true } }, identical_element_shapes: { b: false } },
    },
    { name: 'ta_split', op: 'TensorArraySplitV3', input: ['ta', 'y', 'pieces', 'ta:1'], attr: F },
    { name: 'ta_concat', op: 'TensorArrayConcatV3', input: ['ta', 'ta_split'], attr: concat },
    {
      name: 'tb',
      op: 'TensorArrayV3',
      input: ['three'],
      attr: { dtype: { type: 'DT_FLOAT' }, element_shape: { shape: { unknownRank: true } } },
    },
    { name: 'tb_scatter', op: 'TensorArrayScatterV3', input: ['tb', 'order', 'z', 'tb:1'], attr: F },
    { name: 'tb_concat', op: 'TensorArrayConcatV3', input: ['tb', 'tb_scatter'], attr: concat },
    { name: 'zlist', op: 'TensorListFromTensor', input: ['z', 'plane_shape'], attr: listShapeAttrs },
    {
      name: 'z_concat',
      op: 'TensorListConcat',
      input: ['zlist'],
      attr: { ...listAttrs, element_shape: { shape: { dim: [{ size: 2 }, { size: 4 }] } } },
    },
    { name: 'ysplit', op: 'TensorListSplit', input: ['y', 'unknown_shape', 'pieces'], attr: listShapeAttrs },
    { name: 'ysplit_concat', op: 'TensorListConcatV2', input: ['ysplit', 'unknown_shape', 'no_leading'], attr: listShapeAttrs },
    { name: 'zempty', op: 'EmptyTensorList', input: ['plane_shape', 'max'], attr: listShapeAttrs },
    { name: 'zempty_concat', op: 'TensorListConcatV2', input: ['zempty', 'plane_shape', 'no_leading'], attr: listShapeAttrs },
    { name: 'v2_all', op: 'Identity', input: ['v2_stack'], attr: F },
    { name: 'v2_count', op: 'Identity', input: ['v2_length'], attr: I },
    { name: 'v2_fed_all', op: 'Identity', input: ['v2_fed_stack'], attr: F },
    { name: 'v1_all', op: 'Identity', input: ['v1_stack'], attr: F },
    { name: 'v1_zeros', op: 'Identity', input: ['v1_get2'], attr: F },
    { name: 'existing_all', op: 'Identity', input: ['r1_stack'], attr: F },
    { name: 'existing_count', op: 'Identity', input: ['r1_length'], attr: I },
    { name: 'up_all', op: 'Identity', input: ['up_stack'], attr: F },
    { name: 'down_all', op: 'Identity', input: ['down_stack'], attr: F },
    { name: 'empty_up_all', op: 'Identity', input: ['empty_up_stack'], attr: F },
    { name: 'ta_joined', op: 'Identity', input: ['ta_concat'], attr: F },
    { name: 'ta_lengths', op: 'Identity', input: ['ta_concat:1'], attr: { T: { type: 'DT_INT64' } } },
    { name: 'tb_lengths', op: 'Identity', input: ['tb_concat:1'], attr: { T: { type: 'DT_INT64' } } },
    { name: 'z_lengths', op: 'Identity', input: ['z_concat:1'], attr: { T: { type: 'DT_INT64' } } },
    { name: 'z_joined', op: 'Identity', input: ['z_concat'], attr: F },
    { name: 'zempty_joined', op: 'Identity', input: ['zempty_concat'], attr: F },
    { name: 'ysplit_joined', op: 'Identity', input: ['ysplit_concat'], attr: F },
    { name: 'ysplit_lengths', op: 'Identity', input: ['ysplit_concat:1'], attr: { T: { type: 'DT_INT64' } } },
    { name: 'zempty_lengths', op: 'Identity', input: ['zempty_concat:1'], attr: { T: { type: 'DT_INT64' } } },
  ];
}

/** One bad list op named `bad` on y [2, 3], read by `out`. */
function badListGraph(bad: NodeJson, extra: NodeJson[] = []): NodeJson[] {
  return [
    placeholder('y', [2, 3]),
    placeholder('k', [2], 'DT_INT32'),
    constNode('element_shape', [1], [3], 'DT_INT32'),
    constNode('wrong_shape', [1], [4], 'DT_INT32'),
    scalarInt('two', 2),
    scalarInt('minus_one', -1),
    ...extra,
    bad,
    { name: 'stack', op: 'TensorListStack', input: ['bad', 'element_shape'], attr: stackAttrs },
    { name: 'out', op: 'Identity', input: ['stack'], attr: F },
  ];
}

/** The graph's Loop nodes, in it and in its subgraphs. */
function loops(graph: Graph): number {
  const own = graph.nodes.filter((n) => n.type === 'Loop').length;
  return own + [...graph.subgraphs.values()].reduce((a, g) => a + g.nodes.filter((n) => n.type === 'Loop').length, 0);
}

async function check(nodes: NodeJson[], feedsList: Record<string, HostTensor>[], outputs: string[], expectedLoops: number) {
  const bytes = graphBytes(nodes);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-while-')), 'while.pb');
  writeFileSync(file, bytes);
  const graph = await parseModel(file);
  expect(loops(graph)).toBe(expectedLoops);
  const left = [graph, ...graph.subgraphs.values()].flatMap((g) =>
    g.nodes.filter((n) => /^(Enter|Exit|Merge|Switch|NextIteration|LoopCond)$/.test(n.type)),
  );
  expect(left.map((n) => n.name)).toEqual([]);
  const model = await loadModel(await buildModel(graph, {}), { threads: 1 });
  try {
    for (const feeds of feedsList) {
      const got = await model.run(feeds);
      const expected = await runTfjsGraph({ load: async () => graphDefToArtifacts(bytes, TF_PROTO) }, feeds, outputs);
      for (const name of outputs) {
        const value = got[name];
        expect(isHostTensor(value), name).toBe(true);
        const e = expected[name] as HostTensor;
        const v = value as HostTensor;
        expect(v.dims, name).toEqual(e.dims);
        if (v.type === 'int32' || v.type === 'int64') expect(Array.from(v.data, Number), name).toEqual(Array.from(e.data, Number));
        else expect(compareTensors(name, v, e).maxRelError, name).toBeLessThanOrEqual(1e-5);
      }
    }
  } finally {
    await model.release();
  }
}

describe('a TF1 while loop', () => {
  it('with a counter and a loop invariant becomes a Loop and matches TensorFlow.js for 0, 1 and 5 iterations', async () => {
    const random = createRandom(5);
    const feeds = [0, 1, 5].map((n) => ({ x: randomTensor('float32', [2, 3], random), n: createTensor('int32', [], Int32Array.of(n)) }));
    await check(counterGraph(), feeds, ['acc', 'count'], 1);
  }, 120_000);

  it('over TensorArrays (scatter, read, write, size, gather) matches TensorFlow.js', async () => {
    const random = createRandom(6);
    await check(tensorArrayGraph(), [{ x: randomTensor('float32', [4, 3], random) }], ['y', 'sum'], 1);
  }, 120_000);

  it('over TensorArrays of a known element shape (reserved: writes set their slot in the Loop) matches TensorFlow.js', async () => {
    const random = createRandom(11);
    await check(tensorArrayGraph([3]), [{ x: randomTensor('float32', [4, 3], random) }], ['y', 'sum'], 1);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-while-')), 'while.pb');
    writeFileSync(file, graphBytes(tensorArrayGraph([3])));
    const graph = await parseModel(file);
    // the write in the Loop body sets its element in place (an insert would grow the array past its size)
    const body = [...graph.subgraphs.values()].flatMap((g) => g.nodes.map((n) => n.type));
    expect(body).toContain('SequenceSet');
    expect(body).not.toContain('SequenceInsert');
  }, 120_000);

  it('nested in another loop body becomes a Loop in the outer Loop body and matches TensorFlow.js', async () => {
    const random = createRandom(7);
    await check(nestedGraph(), [{ x: randomTensor('float32', [2, 2], random) }], ['out'], 2);
  }, 120_000);

  it('with TensorList ops (EmptyTensorList, PushBack, Gather, Stack) matches TensorFlow.js', async () => {
    const random = createRandom(8);
    await check(tensorListGraph(), [{ x: randomTensor('float32', [3, 4], random) }], ['g', 'all'], 0);
  }, 120_000);
  it('with TensorArrayConcatV3 (after a scatter) and TensorListLength matches TensorFlow.js', async () => {
    const random = createRandom(9);
    const feeds = { x: randomTensor('float32', [3, 2, 4], random), y: randomTensor('float32', [3, 4], random) };
    await check(concatLengthGraph(), [feeds], ['joined', 'count'], 0);
  }, 120_000);

  it('with TensorListPopBack and a split TensorArray concatenated back gives the hand-computed values', async () => {
    const y = createTensor(
      'float32',
      [3, 4],
      Float32Array.from({ length: 12 }, (_, i) => i),
    );
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-pop-')), 'pop.pb');
    writeFileSync(file, graphBytes(popBackGraph()));
    const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
    try {
      const got = await model.run({ y });
      const read = (name: string) => {
        const v = got[name];
        if (!isHostTensor(v)) throw new Error(`${name} is not a tensor`);
        return { dims: v.dims, data: Array.from(v.data, Number) };
      };
      expect(read('last')).toEqual({ dims: [4], data: [8, 9, 10, 11] });
      expect(read('before_last')).toEqual({ dims: [4], data: [4, 5, 6, 7] });
      expect(read('remaining')).toEqual({ dims: [1, 4], data: [0, 1, 2, 3] });
      expect(read('count')).toEqual({ dims: [], data: [1] });
      expect(read('rejoined')).toEqual({ dims: [3, 4], data: Array.from(y.data as Float32Array) });
    } finally {
      await model.release();
    }
  }, 120_000);
  it('honours write indices in any order and stacks empty arrays to [0, 3], as TensorFlow.js does', async () => {
    const random = createRandom(10);
    await check(outOfOrderGraph(), [{ x: randomTensor('float32', [4, 3], random) }], ['ta_read', 'ta_all', 'list_all', 'list_count'], 0);
    // TensorFlow.js cannot stack an empty array (tf.stack of no tensors): the shapes are TensorFlow's, by hand
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-empty-')), 'empty.pb');
    writeFileSync(file, graphBytes(outOfOrderGraph()));
    const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
    try {
      const got = await model.run({ x: randomTensor('float32', [4, 3], random) });
      for (const name of ['empty_all', 'empty_list_all']) {
        const v = got[name];
        expect(isHostTensor(v) && { dims: v.dims, type: v.type }, name).toEqual({ dims: [0, 3], type: 'float32' });
      }
    } finally {
      await model.release();
    }
  }, 120_000);

  it('fails a read or write out of a fixed-size TensorArray with a coded error naming the node', async () => {
    for (const [at, readOnly] of [
      [2, false],
      [-1, false],
      [5, true],
      [-1, true],
    ] as const) {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-range-')), 'range.pb');
      writeFileSync(file, graphBytes(outOfRangeGraph(at, readOnly)));
      const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
      try {
        await expect(model.run({ y: createTensor('float32', [3], Float32Array.of(1, 2, 3)) })).rejects.toThrow(
          /TSGE-E\d+[\s\S]*\bbad\b[\s\S]*TSGE-E4003[\s\S]*out of range/,
        );
      } finally {
        await model.release();
      }
    }
    for (const at of [2, -1]) {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-range-')), 'scatter.pb');
      writeFileSync(file, graphBytes(outOfRangeScatterGraph(at)));
      const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
      try {
        await expect(model.run({ y: createTensor('float32', [2, 3], new Float32Array(6)) })).rejects.toThrow(
          /TSGE-E\d+[\s\S]*\bbad\b[\s\S]*TSGE-E4003[\s\S]*out of range/,
        );
      } finally {
        await model.release();
      }
    }
  }, 120_000);

  it('writes and scatters dynamic-size TensorArrays out of index order, growing them, as TensorFlow.js does', async () => {
    const random = createRandom(12);
    const feeds = { x: randomTensor('float32', [4, 3], random), y: randomTensor('float32', [2, 3], random) };
    await check(dynamicGraph(), [feeds], ['a_all', 'a_count', 'a_last', 'b_all', 'b_count', 'b_four'], 0);
    await check(reverseLoopGraph(), [{ x: randomTensor('float32', [4, 3], random) }], ['y', 'count'], 1);
  }, 120_000);

  it('fails a read of a TensorArray element never written with a coded error naming the node, as TensorFlow does', async () => {
    const y = createTensor('float32', [3], Float32Array.of(1, 2, 3));
    for (const [dynamic, at] of [
      [false, 1],
      [false, 0],
      [true, 0],
      [true, 1],
    ] as const) {
      const bytes = graphBytes(unwrittenReadGraph(dynamic, at));
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-unwritten-')), 'unwritten.pb');
      writeFileSync(file, bytes);
      const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
      try {
        const failure = await model.run({ y }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(TsgeError.isInstance(failure) && failure.code, `dynamic ${dynamic}, index ${at}`).toBe('TSGE-E6007');
        expect(String(failure)).toMatch(new RegExp(`\\bbad\\b[\\s\\S]*index ${at}: it has not yet been written to`));
      } finally {
        await model.release();
      }
      // TensorFlow.js fails too (TensorFlow: "Could not read from TensorArray index ... not yet been written to")
      await expect(runTfjsGraph({ load: async () => graphDefToArtifacts(bytes, TF_PROTO) }, { y }, ['out'])).rejects.toThrow();
    }
  }, 120_000);

  it('fails a second write to a TensorArray index with a coded error naming the node, as TensorFlow does', async () => {
    const y = createTensor('float32', [3], Float32Array.of(1, 2, 3));
    for (const dynamic of [false, true]) {
      const bytes = graphBytes(doubleWriteGraph(dynamic));
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-twice-')), 'twice.pb');
      writeFileSync(file, bytes);
      const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
      try {
        await expect(model.run({ y })).rejects.toThrow(/TSGE-E6007[\s\S]*\bbad\b[\s\S]*index 1: it has already been written to/);
      } finally {
        await model.release();
      }
      await expect(runTfjsGraph({ load: async () => graphDefToArtifacts(bytes, TF_PROTO) }, { y }, ['out'])).rejects.toThrow(
        /already been written/,
      );
    }
  }, 120_000);

  it('reads an unwritten slot of a TensorListReserve list as zeros and counts the reserved slots, as TensorFlow does', async () => {
    // (and fails to read or stack one whose element shape nothing has given, as TensorFlow does)
    const bytes = graphBytes(reservedListGraph());
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-reserve-')), 'reserve.pb');
    writeFileSync(file, bytes);
    const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
    const y = createTensor('float32', [3], Float32Array.of(1, -2, 3));
    try {
      const got = await model.run({ y });
      const read = (name: string) => {
        const v = got[name];
        if (!isHostTensor(v)) throw new Error(`${name} is not a tensor`);
        return { dims: v.dims, data: Array.from(v.data, Number) };
      };
      // TensorFlow's TensorListGetItem and TensorListStack give zeros for slots never set (values by hand)
      const stacked = { dims: [4, 3], data: [0, 0, 0, 0, 0, 0, 1, -2, 3, 0, 0, 0] };
      expect(read('unwritten')).toEqual({ dims: [3], data: [0, 0, 0] });
      expect(read('written')).toEqual({ dims: [3], data: [1, -2, 3] });
      expect(read('all')).toEqual(stacked);
      expect(read('count')).toEqual({ dims: [], data: [4] });
      // of unknown element shape: the reserved length before and after a write, zeros shaped by the write
      expect(read('u_count0')).toEqual({ dims: [], data: [4] });
      // before any write, the element shape the read or stack gives shapes the zeros
      expect(read('u_zeros0')).toEqual({ dims: [3], data: [0, 0, 0] });
      expect(read('u_all0')).toEqual({ dims: [4, 3], data: new Array(12).fill(0) });
      expect(read('u_all')).toEqual(stacked);
      expect(read('u_popped')).toEqual({ dims: [3], data: [0, 0, 0] });
      expect(read('u_count')).toEqual({ dims: [], data: [3] });
    } finally {
      await model.release();
    }
    // nothing written into a list of unknown element shape: TensorFlow cannot shape its zeros either
    const et = { element_dtype: { type: 'DT_FLOAT' } };
    for (const read of [
      { name: 'bad', op: 'TensorListGetItem', input: ['u0', 'one', 'unknown_shape'], attr: et },
      { name: 'bad', op: 'TensorListStack', input: ['u0', 'unknown_shape'], attr: { ...et, num_elements: { i: -1 } } },
    ]) {
      const unshaped: NodeJson[] = [
        constNode('unknown_shape', [1], [-1], 'DT_INT32'),
        scalarInt('two', 2),
        scalarInt('one', 1),
        { name: 'u0', op: 'TensorListReserve', input: ['unknown_shape', 'two'], attr: { ...et, shape_type: { type: 'DT_INT32' } } },
        read,
        { name: 'out', op: 'Identity', input: ['bad'], attr: F },
      ];
      const unshapedFile = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-reserve-')), 'unshaped.pb');
      writeFileSync(unshapedFile, graphBytes(unshaped));
      const unshapedModel = await loadModel(await buildModel(await parseModel(unshapedFile), {}), { threads: 1 });
      try {
        await expect(unshapedModel.run({}), read.op).rejects.toThrow(/TSGE-E6007[\s\S]*\bbad\b[\s\S]*shape is not known/);
      } finally {
        await unshapedModel.release();
      }
    }
    // TensorFlow.js does not model reserved slots: its GetItem of one fails ("element at index 1 is null")
    await expect(runTfjsGraph({ load: async () => graphDefToArtifacts(bytes, TF_PROTO) }, { y }, ['unwritten'])).rejects.toThrow(/null/);
  }, 120_000);
});

describe('TensorList scatters, resizes, concats and splits', () => {
  it('match TensorFlow.js where it models them (scatter, scatter V2, resize down, split, concat)', async () => {
    const random = createRandom(21);
    const feeds = { x: randomTensor('float32', [3, 4], random), z: randomTensor('float32', [3, 2, 4], random) };
    const outputs = ['scattered', 'scattered2', 'count2', 'gathered3', 'truncated', 'pieces', 'joined', 'z_joined'];
    await check(scatterResizeGraph(), [feeds], outputs, 0);
  }, 120_000);

  it('in a while loop growing a list by TensorListResize and setting the new slot match TensorFlow.js', async () => {
    const random = createRandom(22);
    await check(resizeLoopGraph(), [{ x: randomTensor('float32', [4, 3], random) }], ['y', 'flat', 'count'], 1);
  }, 120_000);

  it('leave the slots a scatter or resize does not write as zeros and give concat lengths, as TensorFlow does', async () => {
    // TensorFlow.js has no TensorListScatterIntoExistingList, no lengths outputs and no unset slots
    // (its stack of one fails): the values are TensorFlow's kernels', by hand
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-scatter-')), 'scatter.pb');
    writeFileSync(file, graphBytes(unwrittenSlotsGraph()));
    const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
    const y = createTensor('float32', [2, 3], Float32Array.of(1, 2, 3, 4, 5, 6));
    const z = createTensor(
      'float32',
      [3, 2, 4],
      Float32Array.from({ length: 24 }, (_, i) => i),
    );
    try {
      const got = await model.run({ y, z, count: createTensor('int32', [], Int32Array.of(5)) });
      const read = (name: string) => {
        const v = got[name];
        if (!isHostTensor(v)) throw new Error(`${name} is not a tensor`);
        return { type: v.type, dims: v.dims, data: Array.from(v.data, Number) };
      };
      const f = (dims: number[], data: number[]) => ({ type: 'float32', dims, data });
      const counts = (type: 'int32' | 'int64', data: number[], dims = [data.length]) => ({ type, dims, data });
      // rows of y at [3, 1]: y[0] at 3, y[1] at 1
      expect(read('v2_all')).toEqual(f([5, 3], [0, 0, 0, 4, 5, 6, 0, 0, 0, 1, 2, 3, 0, 0, 0]));
      expect(read('v2_count')).toEqual(counts('int32', [5], []));
      expect(read('v2_fed_all')).toEqual(read('v2_all'));
      expect(read('v1_all')).toEqual(f([4, 3], [0, 0, 0, 4, 5, 6, 0, 0, 0, 1, 2, 3]));
      expect(read('v1_zeros')).toEqual(f([3], [0, 0, 0]));
      expect(read('existing_all')).toEqual(f([4, 3], [4, 5, 6, 0, 0, 0, 0, 0, 0, 1, 2, 3]));
      expect(read('existing_count')).toEqual(counts('int32', [4], []));
      expect(read('up_all')).toEqual(f([4, 3], [1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0]));
      expect(read('down_all')).toEqual(f([1, 3], [1, 2, 3]));
      expect(read('empty_up_all')).toEqual(f([2, 3], [0, 0, 0, 0, 0, 0]));
      expect(read('ta_joined')).toEqual(f([2, 3], [1, 2, 3, 4, 5, 6]));
      expect(read('ta_lengths')).toEqual(counts('int64', [0, 2]));
      expect(read('tb_lengths')).toEqual(counts('int64', [2, 2, 2]));
      expect(read('z_lengths')).toEqual(counts('int64', [2, 2, 2]));
      expect(read('z_joined')).toEqual(f([6, 4], Array.from(z.data as Float32Array)));
      expect(read('zempty_joined')).toEqual(f([0, 4], []));
      expect(read('zempty_lengths')).toEqual(counts('int64', []));
      expect(read('ysplit_joined')).toEqual(f([2, 3], [1, 2, 3, 4, 5, 6]));
      expect(read('ysplit_lengths')).toEqual(counts('int64', [0, 2]));
    } finally {
      await model.release();
    }
  }, 120_000);

  it('fails a negative or out-of-bounds index, rows of another element shape or dtype, and a negative size with a coded error naming the node', async () => {
    const yi = { name: 'yi', op: 'Cast', input: ['y'], attr: { SrcT: { type: 'DT_FLOAT' }, DstT: { type: 'DT_INT32' } } };
    const cases: { bad: NodeJson; extra?: NodeJson[]; k?: number[]; message: RegExp }[] = [
      {
        bad: { name: 'bad', op: 'TensorListScatter', input: ['y', 'k', 'element_shape'], attr: listShapeAttrs },
        k: [-1, 0],
        message: /out of range/,
      },
      {
        bad: { name: 'bad', op: 'TensorListScatterV2', input: ['y', 'at', 'element_shape', 'two'], attr: listShapeAttrs },
        extra: [constNode('at', [2], [2, 0], 'DT_INT32')],
        message: /position 2 is out of range for a sequence of 2/,
      },
      {
        bad: { name: 'bad', op: 'TensorListScatterIntoExistingList', input: ['l0', 'y', 'k'], attr: listAttrs },
        extra: [{ name: 'l0', op: 'TensorListReserve', input: ['element_shape', 'two'], attr: listShapeAttrs }],
        k: [0, -1],
        message: /out of range/,
      },
      { bad: { name: 'bad', op: 'TensorListScatter', input: ['y', 'k', 'wrong_shape'], attr: listShapeAttrs }, message: /dims|shape/ },
      {
        bad: { name: 'bad', op: 'TensorListScatterIntoExistingList', input: ['l0', 'yi', 'k'], attr: listAttrs },
        extra: [{ name: 'l0', op: 'TensorListReserve', input: ['element_shape', 'two'], attr: listShapeAttrs }, yi],
        message: /dtype int32 differs from the sequence's float32/,
      },
      {
        bad: { name: 'bad', op: 'TensorListResize', input: ['l0', 'minus_one'] },
        extra: [{ name: 'l0', op: 'TensorListFromTensor', input: ['y', 'element_shape'], attr: listShapeAttrs }],
        message: /size -1 is not an integer/,
      },
    ];
    for (const { bad, extra, k, message } of cases) {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-bad-list-')), 'bad.pb');
      writeFileSync(file, graphBytes(badListGraph(bad, extra)));
      const uses = (name: string) => [bad, ...(extra ?? [])].some((n) => n.input?.includes(name));
      const feeds = {
        y: createTensor('float32', [2, 3], Float32Array.of(1, 2, 3, 4, 5, 6)),
        ...(uses('k') ? { k: createTensor('int32', [2], Int32Array.from(k ?? [0, 1])) } : {}),
      };
      const failure = await (async () => {
        const model = await loadModel(await buildModel(await parseModel(file), {}), { threads: 1 });
        try {
          await model.run(feeds);
        } finally {
          await model.release();
        }
      })().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(TsgeError.isInstance(failure), `${bad.op}: ${String(failure)}`).toBe(true);
      expect(String(failure), bad.op).toMatch(/\bbad\b/);
      expect(String(failure), bad.op).toMatch(message);
    }
  }, 120_000);
});
