import { describe, expect, it } from 'vitest';
import { controlFlowGraph, everyDtypeGraph } from '../air/air-fixtures.test-util.js';
import { GraphBuilder } from '../builder/graph-builder.js';
import { Graph } from '../graph/graph.js';
import type { InDataAnchor } from '../graph/node.js';
import { createOpDesc } from '../graph/op-desc.js';
import type { OpDefinitionV1, ParamSpec } from '../ops/op-definition.js';
import { createOpRegistry } from '../ops/op-registry.js';
import { attr } from '../types/attr.js';
import { createTensor } from '../types/tensor.js';
import { createTensorDesc } from '../types/tensor-desc.js';
import { verifyGraph } from './verify-graph.js';

const param = (name: string, option: ParamSpec['option'] = 'required'): ParamSpec => ({ name, option, type: 'T' });
function op(type: string, inputs: ParamSpec[], outputs: ParamSpec[], extra: Partial<OpDefinitionV1> = {}): OpDefinitionV1 {
  return {
    specVersion: 'v1',
    domain: 'ai.onnx',
    type,
    sinceVersion: 1,
    inputs,
    outputs,
    attributes: [],
    typeConstraints: [],
    // elementwise: output 0 is input 0
    infer: (ctx) => {
      const x = ctx.input(0);
      if (x) ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
    },
    ...extra,
  };
}
const ops = createOpRegistry([
  op('Relu', [param('X')], [param('Y')]),
  op('Neg', [param('X')], [param('Y')]),
  op('Add', [param('A'), param('B')], [param('C')]),
  op('Identity', [param('X')], [param('Y')]),
  op('Concat', [param('inputs', 'variadic')], [param('out')], { attributes: [{ name: 'axis', kind: 'int', required: true }] }),
  op('Clip', [param('X'), param('min', 'optional'), param('max', 'optional')], [param('Y')]),
  op('Gemm', [param('A'), param('B'), param('C', 'optional')], [param('Y')], { attributes: [{ name: 'alpha', kind: 'float' }] }),
]);

const f32 = (shape: (number | string)[]) => ({ outputDescs: [createTensorDesc('float32', shape)] });

/** x → relu → NetOutput, with a registry that knows Relu. */
function simple(): { graph: Graph; b: GraphBuilder } {
  const b = new GraphBuilder('g');
  const x = b.input('x', 'float32', [2, 3]);
  const r = b.op('Relu', [x], { name: 'relu', ...f32([2, 3]) });
  b.output(r, 'y');
  return { graph: b.build(), b };
}
const codes = (graph: Graph, options: Parameters<typeof verifyGraph>[1] = { ops }): string[] =>
  verifyGraph(graph, options).map((d) => d.code);

describe('verifyGraph accepts well-formed graphs', () => {
  it('passes a graph with If/Loop subgraphs and control edges, and a graph of constants', () => {
    const g = controlFlowGraph();
    g.findNode('relu')?.opDesc.attrs.delete('a_graph');
    g.findNode('relu')?.opDesc.attrs.delete('a_graphs');
    expect(verifyGraph(g)).toEqual([]);
    expect(verifyGraph(everyDtypeGraph())).toEqual([]);
    expect(verifyGraph(simple().graph, { ops, checkInference: true })).toEqual([]);
  });
});

describe('verifyGraph reports each broken invariant', () => {
  it('E1001: an input anchor whose producer does not list it', () => {
    const { graph } = simple();
    graph.findNode('relu')?.producer(0)?.peers.splice(0, 1);
    expect(codes(graph)).toContain('TSGE-E1001');
  });

  it('E1002: an output listing a consumer that points elsewhere', () => {
    const { graph } = simple();
    const relu = graph.findNode('relu');
    (relu?.inData[0] as InDataAnchor).peer = undefined;
    expect(codes(graph)).toContain('TSGE-E1002');
  });

  it('E1003: a cycle, naming its nodes', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    const a = b.op('Add', [x, undefined], { name: 'a', ...f32([1]) });
    const r = b.op('Relu', [a], { name: 'r', ...f32([1]) });
    b.output(r);
    const g = b.build();
    g.addEdge(r.node, 0, a.node, 1);
    const d = verifyGraph(g, { ops }).find((x) => x.code === 'TSGE-E1003');
    expect(d?.message).toMatch(/a -> r|r -> a/);
  });

  it('E1004: duplicate node names', () => {
    const { graph } = simple();
    graph.addNode(createOpDesc({ name: 'relu', type: 'NoOp' }));
    expect(codes(graph)).toEqual(['TSGE-E1004']);
  });

  it('E1005: a required input left unconnected', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    b.output(b.op('Add', [x, undefined], { name: 'a', ...f32([1]) }));
    expect(codes(b.build())).toEqual(['TSGE-E1005']);
  });

  it('E1006: an edge from another graph', () => {
    const { graph } = simple();
    const other = simple().graph;
    graph.link(other.findNode('x')?.outData[0] as never, graph.findNode('relu')?.inData[0] as InDataAnchor);
    expect(codes(graph)).toContain('TSGE-E1006');
  });

  it('E1007: no NetOutput, or two', () => {
    const g = new Graph('g');
    g.addNode(createOpDesc({ name: 'x', type: 'Data', attrs: [['index', attr.int(0)]], outputDescs: [createTensorDesc('float32', [1])] }));
    expect(codes(g)).toEqual(['TSGE-E1007']);
    const { graph } = simple();
    graph.addNode(createOpDesc({ name: 'out2', type: 'NetOutput' }));
    expect(codes(graph)).toEqual(['TSGE-E1007']);
  });

  it('E1008: Data indices that are missing, duplicated or out of 0..n-1', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    const y = b.input('y', 'float32', [1]);
    b.output(b.op('Add', [x, y], { name: 'a', ...f32([1]) }));
    const g = b.build();
    y.node.opDesc.attrs.set('index', attr.int(0));
    expect(codes(g)).toEqual(['TSGE-E1008']);
    y.node.opDesc.attrs.set('index', attr.int(5));
    expect(codes(g)).toEqual(['TSGE-E1008']);
    y.node.opDesc.attrs.delete('index');
    expect(codes(g)).toEqual(['TSGE-E1008']);
  });

  it('E1009: an input desc whose dtype differs from its producer', () => {
    const { graph } = simple();
    (graph.findNode('relu')?.opDesc.inputDescs as unknown[])[0] = createTensorDesc('int32', [2, 3]);
    expect(codes(graph)).toEqual(['TSGE-E1009']);
  });

  it('E1010: an output shape that disagrees with inference (only when asked)', () => {
    const { graph } = simple();
    const relu = graph.findNode('relu');
    (relu?.opDesc.outputDescs as unknown[])[0] = createTensorDesc('float32', [2, 4]);
    (graph.findNode('NetOutput')?.opDesc.inputDescs as unknown[])[0] = createTensorDesc('float32', [2, 4]);
    expect(codes(graph)).toEqual([]);
    const found = verifyGraph(graph, { ops, checkInference: true });
    expect(found.map((d) => d.code)).toEqual(['TSGE-E1010']);
    expect(found[0]?.message).toContain('float32[2,3]');
    // the check leaves the graph as it was
    expect(relu?.opDesc.outputDescs[0]?.shape).toEqual([2, 4]);
  });

  it('E1011: a subgraph not owned by the root', () => {
    const g = controlFlowGraph();
    const sub = g.subgraph('else_branch') as Graph;
    sub.owner = new Graph('elsewhere');
    expect(codes(g, {})).toContain('TSGE-E1011');
  });

  it('E1012: a subgraph Data mapping to a parent input that does not exist', () => {
    const g = controlFlowGraph();
    g.subgraph('else_branch')?.findNode('else_x')?.opDesc.attrs.set('_parent_node_index', attr.int(7));
    expect(codes(g, {})).toContain('TSGE-E1012');
  });

  it('E1013: a Const without a tensor, or disagreeing with its desc', () => {
    const b = new GraphBuilder('g');
    const c = b.constant('c', createTensor('float32', [2], new Float32Array([1, 2])));
    b.output(c);
    const g = b.build();
    (c.node.opDesc.outputDescs as unknown[])[0] = createTensorDesc('float32', [3]);
    expect(codes(g)).toEqual(['TSGE-E1013']);
    c.node.opDesc.attrs.delete('value');
    expect(codes(g)).toEqual(['TSGE-E1013']);
  });

  it('E1014: a one-sided control edge', () => {
    const { graph } = simple();
    const x = graph.findNode('x');
    const relu = graph.findNode('relu');
    if (x && relu) x.outControl.peers.push(relu.inControl);
    expect(codes(graph)).toEqual(['TSGE-E1014']);
  });

  it('E1015: an op the registry does not know', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    b.output(b.op('Mystery', [x], { name: 'm', domain: 'tsge', ...f32([1]) }));
    expect(codes(b.build())).toEqual(['TSGE-E1015']);
  });

  it('E1016: a required attribute missing, or an attribute of the wrong kind', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    const c = b.op('Concat', [x, x], { name: 'c', ...f32([2]) });
    const gemm = b.op('Gemm', [x, x], { name: 'gemm', attrs: { alpha: attr.string('big') }, ...f32([1]) });
    b.output(c).output(gemm);
    const found = verifyGraph(b.build(), { ops });
    expect(found.map((d) => d.code)).toEqual(['TSGE-E1016', 'TSGE-E1016']);
    expect(found.map((d) => d.message).join('\n')).toMatch(/axis: is required[\s\S]*alpha: has kind string, expected float/);
  });

  it('E1017: too few or too many inputs for the schema, including variadic minimums', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    const many = b.op('Relu', [x, x], { name: 'many', ...f32([1]) });
    const none = b.op('Concat', [], { name: 'none', attrs: { axis: attr.int(0) }, ...f32([1]) });
    const clip = b.op('Clip', [x], { name: 'clip', ...f32([1]) });
    b.output(many).output(none).output(clip);
    const found = verifyGraph(b.build(), { ops });
    expect(found.map((d) => [d.code, d.location?.node])).toEqual([
      ['TSGE-E1017', 'many'],
      ['TSGE-E1017', 'none'],
    ]);
  });

  it('E1018: output descs that do not match the output anchors', () => {
    const { graph } = simple();
    graph.findNode('relu')?.opDesc.outputDescs.push(createTensorDesc('float32', [1]));
    expect(codes(graph)).toEqual(['TSGE-E1018']);
  });

  it('E1019: a subgraph whose parent does not call it', () => {
    const g = controlFlowGraph();
    const sub = g.subgraph('else_branch') as Graph;
    sub.parentNode = g.findNode('relu');
    expect(codes(g, {})).toContain('TSGE-E1019');
  });

  it('E1020: a node calling a subgraph that does not exist', () => {
    const g = controlFlowGraph();
    g.findNode('if')?.opDesc.subgraphNames.push('ghost');
    const found = verifyGraph(g, {}).filter((d) => d.code === 'TSGE-E1020');
    expect(found.map((d) => d.message).join()).toContain('ghost');
  });

  it('E1021: a node whose graph field points elsewhere', () => {
    const { graph } = simple();
    const relu = graph.findNode('relu');
    if (relu) relu.graph = new Graph('other');
    expect(codes(graph)).toContain('TSGE-E1021');
  });

  it('E1022: a subgraph named like the root', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    const sub = new GraphBuilder('g');
    sub.output(sub.input('s', 'float32', [1], { parentIndex: 0 }));
    b.output(b.op('PartitionedCall', [x], { name: 'call', subgraphs: { f: sub.build() }, ...f32([1]) }));
    expect(codes(b.build(), {})).toEqual(['TSGE-E1022']);
  });
});
