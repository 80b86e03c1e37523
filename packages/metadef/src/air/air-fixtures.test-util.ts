import { GraphBuilder } from '../builder/graph-builder.js';
import type { Graph } from '../graph/graph.js';
import { type AttrValue, attr } from '../types/attr.js';
import { DATA_TYPES, type DataType } from '../types/dtype.js';
import { type HostTensor, allocateStorage, createTensor } from '../types/tensor.js';
import { createTensorDesc } from '../types/tensor-desc.js';

const f32 = (shape: (number | string)[]) => ({ outputDescs: [createTensorDesc('float32', shape)] });

/** A small tensor of each dtype with non-trivial content. */
export function sampleTensor(dtype: DataType): HostTensor {
  const dims = [2, 3];
  const storage = allocateStorage(dtype, 6);
  for (let i = 0; i < storage.length; i++) {
    if (Array.isArray(storage)) storage[i] = `s${i}-é${'x'.repeat(i)}`;
    else if (storage instanceof BigInt64Array) storage[i] = BigInt(i) * -1234567890123n;
    else if (storage instanceof BigUint64Array) storage[i] = BigInt(i) * 1234567890123456n;
    else if (dtype === 'int4') storage[i] = i - 3;
    else if (dtype === 'uint4' || dtype === 'float4e2m1') storage[i] = (i * 3) & 0x0f;
    else if (dtype === 'bool') storage[i] = i & 1;
    else storage[i] = dtype.startsWith('float') || dtype.startsWith('complex') ? i * 1.5 - 2 : i + 1;
  }
  return createTensor(dtype, dims, storage);
}

/** One value of every attribute kind. */
export function everyAttrKind(): Record<string, AttrValue> {
  const desc = {
    ...createTensorDesc('float16', ['batch', 3, -1], 'NCHW'),
    shapeRange: [[1, 8] as const, [3, 3] as const, [0, -1] as const],
  };
  return {
    a_int: attr.int(-(2 ** 40)),
    a_float: attr.float(Math.fround(0.1)),
    a_string: attr.string('héllo'),
    a_bool: attr.bool(true),
    a_bytes: attr.bytes(new Uint8Array([0, 255, 7])),
    a_tensor: attr.tensor(sampleTensor('int32')),
    a_tensor_desc: attr.tensorDesc(desc),
    a_graph: attr.graph('unused_graph_ref'),
    a_named: attr.namedAttrs({ name: 'fn', attrs: new Map<string, AttrValue>([['k', attr.ints([1, 2])]]) }),
    a_dtype: attr.dtype('bfloat16'),
    a_dtype_private: attr.dtype('float8e4m3fnuz'),
    a_expression: attr.expression('s0 * 2 + 1'),
    a_ints: attr.ints([0, -1, 2 ** 50]),
    a_floats: attr.floats([1.5, -0, Math.fround(3.3)]),
    a_strings: attr.strings(['a', '', 'ü']),
    a_bools: attr.bools([true, false]),
    a_bytes_list: attr.bytesList([new Uint8Array([1]), new Uint8Array(0)]),
    a_tensors: attr.tensors([sampleTensor('float32'), sampleTensor('string')]),
    a_tensor_descs: attr.tensorDescs([createTensorDesc('int64', [])]),
    a_graphs: attr.graphs(['g1', 'g2']),
    a_named_list: attr.namedAttrsList([{ name: 'x', attrs: new Map() }]),
    a_dtypes: attr.dtypes(['float32', 'uint4', 'string']),
    a_list_list_int: attr.listListInt([[1, 2], [], [-3]]),
    a_list_list_float: attr.listListFloat([[0.5], [1.25, -2]]),
    a_empty_ints: attr.ints([]),
    a_empty_strings: attr.strings([]),
  };
}

/** Loop body: (iteration, condition, carried) → (condition, carried + 1), optionally with a nested Loop. */
function loopBody(name: string, nested?: Graph): Graph {
  const b = new GraphBuilder(name);
  const i = b.input(`${name}_i`, 'int64', [], { parentIndex: 0 });
  const cond = b.input(`${name}_cond`, 'bool', [], { parentIndex: 1 });
  const carried = b.input(`${name}_v`, 'float32', ['batch', 4], { parentIndex: 2 });
  const one = b.constant(`${name}_one`, new Float32Array([1]), [1]);
  let v = b.op('Add', [carried, one], { name: `${name}_add`, ...f32(['batch', 4]) });
  if (nested) {
    const [, inner] = b.opN('Loop', [i, cond, v], 2, {
      name: `${name}_inner_loop`,
      subgraphs: { body: nested },
      outputDescs: [createTensorDesc('bool', []), createTensorDesc('float32', ['batch', 4])],
    });
    v = inner as typeof v;
  }
  const c = b.op('Identity', [cond], { name: `${name}_cond_out`, outputDescs: [createTensorDesc('bool', [])] });
  b.output(c).output(v);
  void i;
  return b.build();
}

/** Root graph with If (then/else), a nested Loop inside the then branch, control edges, every attribute kind and symbolic shapes. */
export function controlFlowGraph(): Graph {
  const thenBranch = (() => {
    const b = new GraphBuilder('then_branch');
    const x = b.input('then_x', 'float32', ['batch', 4], { parentIndex: 1 });
    const trip = b.constant('then_trip', new BigInt64Array([3n]), []);
    const cond = b.constant('then_cond', new Uint8Array([1]), [], 'bool');
    const [, y] = b.opN('Loop', [trip, cond, x], 2, {
      name: 'then_loop',
      subgraphs: { body: loopBody('outer_body', loopBody('inner_body')) },
      outputDescs: [createTensorDesc('bool', []), createTensorDesc('float32', ['batch', 4])],
    });
    b.output(y as NonNullable<typeof y>, 'then_out');
    return b.build();
  })();
  const elseBranch = (() => {
    const b = new GraphBuilder('else_branch');
    const x = b.input('else_x', 'float32', ['batch', 4], { parentIndex: 1 });
    b.output(b.op('Neg', [x], { name: 'else_neg', ...f32(['batch', 4]) }), 'else_out');
    return b.build();
  })();

  const b = new GraphBuilder('main');
  const x = b.input('x', 'float32', ['batch', 4]);
  const flag = b.input('flag', 'bool', []);
  const relu = b.op('Relu', [x], { name: 'relu', ...f32(['batch', 4]), attrs: everyAttrKind() });
  const fused = b.op('FusedThing', [relu, undefined, x], { name: 'fused', domain: 'tsge', ...f32(['batch', 4]) });
  const branch = b.op('If', [flag, fused], {
    name: 'if',
    subgraphs: { then_branch: thenBranch, else_branch: elseBranch },
    ...f32(['batch', 4]),
  });
  const noop = b.op('NoOp', [], { name: 'barrier', outputDescs: [] });
  b.graph.addControlEdge(relu.node, noop.node);
  b.graph.addControlEdge(noop.node, branch.node);
  b.output(branch, 'y');
  const g = b.build();
  g.attrs.set('producer', attr.string('tsge tests'));
  const fusedDesc = fused.node.opDesc;
  fusedDesc.streamId = 0;
  fusedDesc.outputOffsets = [0];
  fusedDesc.inputOffsets = [64, 0, 128];
  fusedDesc.workspaceBytes = [256];
  fusedDesc.outputDescs[0] = {
    ...createTensorDesc('float32', ['batch', 1, 1, 4], 'NCHW4c'),
    originShape: ['batch', 4],
    originFormat: 'ND',
  };
  return g;
}

/** One Const per data type. */
export function everyDtypeGraph(): Graph {
  const b = new GraphBuilder('dtypes');
  for (const dtype of DATA_TYPES) b.output(b.constant(`c_${dtype}`, sampleTensor(dtype)), `out_${dtype}`);
  b.output(b.constant('scalar', createTensor('float64', [], new Float64Array([Math.PI]))));
  b.output(b.constant('empty', createTensor('int32', [0, 5])));
  return b.build();
}
