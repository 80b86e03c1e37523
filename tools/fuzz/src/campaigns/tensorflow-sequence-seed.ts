// A GraphDef of TensorArray and TensorList ops (scatter, split, concat with leading_dims, push/pop,
// length, stack, element shape, a batch of lists pushed and joined, close) for the TensorFlow
// campaigns: the test data's graphs have few of them.
import type protobuf from 'protobufjs';

const F = { T: { type: 'DT_FLOAT' } };
const I = { T: { type: 'DT_INT32' } };
const ET = { element_dtype: { type: 'DT_FLOAT' } };
const UNKNOWN = { shape: { unknownRank: true } };
const dims = (shape: readonly number[]) => ({ dim: shape.map((size) => ({ size })) });
const placeholder = (name: string, shape: readonly number[]) => ({
  name,
  op: 'Placeholder',
  attr: { dtype: { type: 'DT_FLOAT' }, shape: { shape: dims(shape) } },
});
const ints = (name: string, shape: readonly number[], values: readonly number[], dtype = 'DT_INT32') => ({
  name,
  op: 'Const',
  attr: {
    dtype: { type: dtype },
    value: { tensor: { dtype, tensorShape: dims(shape), ...(dtype === 'DT_INT64' ? { int64Val: values } : { intVal: values }) } },
  },
});
const tensorArray = (name: string, size: string) => ({
  name,
  op: 'TensorArrayV3',
  input: [size],
  attr: { dtype: { type: 'DT_FLOAT' }, element_shape: UNKNOWN, dynamic_size: { b: false }, identical_element_shapes: { b: false } },
});
const CONCAT = { dtype: { type: 'DT_FLOAT' }, element_shape_except0: UNKNOWN };

const NODES = [
  placeholder('x', [3, 2, 4]),
  placeholder('y', [3, 4]),
  ints('three', [], [3]),
  ints('two', [], [2]),
  ints('order', [3], [2, 0, 1]),
  tensorArray('a', 'three'),
  { name: 'scatter', op: 'TensorArrayScatterV3', input: ['a', 'order', 'x', 'a:1'], attr: F },
  { name: 'a_concat', op: 'TensorArrayConcatV3', input: ['a', 'scatter'], attr: CONCAT },
  ints('lengths', [2], [1, 2], 'DT_INT64'),
  tensorArray('b', 'two'),
  { name: 'split', op: 'TensorArraySplitV3', input: ['b', 'y', 'lengths', 'b:1'], attr: F },
  { name: 'b_concat', op: 'TensorArrayConcatV3', input: ['b', 'split'], attr: CONCAT },
  ints('element_shape', [1], [4]),
  { name: 'list', op: 'TensorListFromTensor', input: ['y', 'element_shape'], attr: { ...ET, shape_type: { type: 'DT_INT32' } } },
  { name: 'pushed', op: 'TensorListPushBack', input: ['list', 'y'], attr: ET },
  { name: 'pop', op: 'TensorListPopBack', input: ['list', 'element_shape'], attr: ET },
  { name: 'length', op: 'TensorListLength', input: ['pop'] },
  { name: 'stack', op: 'TensorListStack', input: ['pop', 'element_shape'], attr: { ...ET, num_elements: { i: -1 } } },
  { name: 'a_close', op: 'TensorArrayCloseV3', input: ['a', '^a_concat'] },
  { name: 'shape_of', op: 'TensorListElementShape', input: ['pop'], attr: { shape_type: { type: 'DT_INT32' } } },
  ints('any_shape', [], [-1]),
  { name: 'reserved', op: 'TensorListReserve', input: ['any_shape', 'two'], attr: { ...ET, shape_type: { type: 'DT_INT32' } } },
  ints('leading', [2], [1, 3], 'DT_INT64'),
  ints('rows_shape', [2], [-1, 4]),
  {
    name: 'r_concat',
    op: 'TensorListConcatV2',
    input: ['reserved', 'rows_shape', 'leading'],
    attr: { ...ET, shape_type: { type: 'DT_INT32' } },
  },
  { name: 'batch', op: 'Pack', input: ['list', 'pop', 'list'], attr: { T: { type: 'DT_VARIANT' }, N: { i: 3 }, axis: { i: 0 } } },
  { name: 'batch_pushed', op: 'TensorListPushBackBatch', input: ['batch', 'y'], attr: ET },
  { name: 'batch_joined', op: 'TensorListConcatLists', input: ['batch_pushed', 'batch'], attr: ET },
  { name: 'lists', op: 'Unpack', input: ['batch_joined'], attr: { T: { type: 'DT_VARIANT' }, num: { i: 3 }, axis: { i: 0 } } },
  { name: 'lists_stack', op: 'TensorListStack', input: ['lists:1', 'element_shape'], attr: { ...ET, num_elements: { i: -1 } } },
  { name: 'joined', op: 'Identity', input: ['a_concat'], attr: F },
  { name: 'element_shape_out', op: 'Identity', input: ['shape_of'], attr: I },
  { name: 'zeros_joined', op: 'Identity', input: ['r_concat'], attr: F },
  { name: 'batch_out', op: 'Identity', input: ['lists_stack'], attr: F },
  { name: 'rejoined', op: 'Identity', input: ['b_concat'], attr: F },
  { name: 'last', op: 'Identity', input: ['pop:1'], attr: F },
  { name: 'count', op: 'Identity', input: ['length'], attr: I },
  { name: 'rest', op: 'Identity', input: ['stack'], attr: F },
];

/** The graph as binary GraphDef, through the given schema type. */
export function sequenceGraphDef(graphDef: protobuf.Type): Uint8Array {
  return graphDef.encode(graphDef.fromObject({ node: NODES, versions: { producer: 1087 } })).finish();
}
