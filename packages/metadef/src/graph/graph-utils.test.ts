import { describe, expect, it } from 'vitest';
import { controlFlowGraph } from '../air/air-fixtures.test-util.js';
import { parseAir } from '../air/parse-air.js';
import { serializeAir } from '../air/serialize-air.js';
import { GraphBuilder } from '../builder/graph-builder.js';
import { describeGraph } from '../dump/describe-graph.js';
import { attr } from '../types/attr.js';
import { opsetOf } from './opset.js';
import { createTensorDesc } from '../types/tensor-desc.js';
import { verifyGraph } from '../verify/verify-graph.js';
import { Graph } from './graph.js';
import type { Node } from './node.js';
import { createOpDesc } from './op-desc.js';
import { ancestorsOf, isReachable, reachableFrom, topologicalSort } from './topo.js';

const f32 = { outputDescs: [createTensorDesc('float32', [4])] };
const names = (nodes: Iterable<Node>): string[] => [...nodes].map((n) => n.name);
const order = (g: Graph, kind: 'bfs' | 'dfs' = 'bfs'): string[] => {
  const r = topologicalSort(g, kind);
  if (!r.ok) throw new Error('unexpected cycle');
  return names(r.order);
};

/** x → a1 → a2 and x → b1 → b2 joined by add; created interleaved (a1, b1, a2, b2). */
function twoBranches(): Graph {
  const b = new GraphBuilder('g');
  const x = b.input('x', 'float32', [4]);
  const a1 = b.op('Relu', [x], { name: 'a1', ...f32 });
  const b1 = b.op('Neg', [x], { name: 'b1', ...f32 });
  const a2 = b.op('Relu', [a1], { name: 'a2', ...f32 });
  const b2 = b.op('Neg', [b1], { name: 'b2', ...f32 });
  b.output(b.op('Add', [a2, b2], { name: 'add', ...f32 }), 'y');
  return b.build();
}
const opNode = (g: Graph, name: string, type: string, inputs = 1, outputs = 1): Node =>
  g.addNode(
    createOpDesc({
      name,
      type,
      inputDescs: Array.from({ length: inputs }, () => createTensorDesc('float32', [4])),
      outputDescs: Array.from({ length: outputs }, () => createTensorDesc('float32', [4])),
    }),
  );

describe('topological sort', () => {
  it('BFS interleaves branches in creation order; DFS finishes one branch first', () => {
    const g = twoBranches();
    expect(order(g)).toEqual(['x', 'a1', 'b1', 'a2', 'b2', 'add', 'NetOutput']);
    expect(order(g, 'dfs')).toEqual(['x', 'a1', 'a2', 'b1', 'b2', 'add', 'NetOutput']);
  });

  it('is stable: the same across repeated runs, clones and an .air round trip', () => {
    const g = twoBranches();
    const first = [order(g), order(g, 'dfs')];
    expect([order(g), order(g, 'dfs')]).toEqual(first);
    const copy = g.clone();
    expect([order(copy), order(copy, 'dfs')]).toEqual(first);
    const back = parseAir(serializeAir(g)).graph as Graph;
    expect([order(back), order(back, 'dfs')]).toEqual(first);
  });

  it('respects control edges', () => {
    const g = twoBranches();
    g.addControlEdge(g.findNode('b2') as Node, g.findNode('a1') as Node);
    expect(order(g)).toEqual(['x', 'b1', 'b2', 'a1', 'a2', 'add', 'NetOutput']);
    expect(order(g, 'dfs')).toEqual(['x', 'b1', 'b2', 'a1', 'a2', 'add', 'NetOutput']);
  });
});

describe('reachability', () => {
  it('follows data and control edges forward and backward', () => {
    const g = twoBranches();
    const n = (name: string) => g.findNode(name) as Node;
    expect(names(reachableFrom(n('a1'))).sort()).toEqual(['NetOutput', 'a2', 'add']);
    expect(isReachable(n('a1'), n('b2'))).toBe(false);
    g.addControlEdge(n('a2'), n('b2'));
    expect(isReachable(n('a1'), n('b2'))).toBe(true);
    expect(isReachable(n('add'), n('add'))).toBe(true);
    expect(names(ancestorsOf([n('b2')])).sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'x']);
  });
});

describe('graph mutation keeps anchors consistent', () => {
  it('adds and removes nodes with all their edges', () => {
    const g = twoBranches();
    const extra = opNode(g, 'extra', 'Relu');
    g.addEdge(g.findNode('a1') as Node, 0, extra, 0);
    g.addControlEdge(extra, g.findNode('add') as Node);
    expect(g.findNode('a1')?.outData[0]?.peers.length).toBe(2);
    g.removeNode(extra);
    expect(extra.graph).toBeUndefined();
    expect(g.findNode('extra')).toBeUndefined();
    expect(g.findNode('a1')?.outData[0]?.peers.length).toBe(1);
    expect(g.findNode('add')?.inControl.peers).toEqual([]);
    expect(verifyGraph(g)).toEqual([]);
  });

  it('relinks an input, dropping the old producer link', () => {
    const g = twoBranches();
    const add = g.findNode('add') as Node;
    g.addEdge(g.findNode('a1') as Node, 0, add, 1);
    expect(add.producer(1)?.node.name).toBe('a1');
    expect(g.findNode('b2')?.outData[0]?.peers).toEqual([]);
    expect(verifyGraph(g)).toEqual([]);
  });

  it('inserts a node between a producer and one consumer', () => {
    const g = twoBranches();
    const cast = opNode(g, 'cast', 'Cast');
    const add = g.findNode('add') as Node;
    g.insertBetween(add.inData[0] as never, cast);
    expect(add.producer(0)?.node.name).toBe('cast');
    expect(cast.producer(0)?.node.name).toBe('a2');
    expect(g.findNode('a2')?.outData[0]?.peers.map((p) => p.node.name)).toEqual(['cast']);
    expect(order(g)).toEqual(['x', 'a1', 'b1', 'a2', 'b2', 'cast', 'add', 'NetOutput']);
    expect(verifyGraph(g)).toEqual([]);
  });

  it('replaces a node, mapping inputs and outputs and moving control edges', () => {
    const g = twoBranches();
    const add = g.findNode('add') as Node;
    g.addControlEdge(g.findNode('x') as Node, add);
    const sub = opNode(g, 'sub', 'Sub', 2);
    g.replaceNode(add, sub, { inputMap: [1, 0] });
    expect(g.findNode('add')).toBeUndefined();
    expect(sub.producer(0)?.node.name).toBe('b2');
    expect(sub.producer(1)?.node.name).toBe('a2');
    expect(g.outputNode()?.producer(0)?.node.name).toBe('sub');
    expect(names(sub.inControl.peers.map((p) => p.node))).toEqual(['x']);
    expect(verifyGraph(g)).toEqual([]);
  });

  it('isolates a node, leaving it in the graph with no edges', () => {
    const g = twoBranches();
    const a2 = g.findNode('a2') as Node;
    g.addControlEdge(a2, g.findNode('b2') as Node);
    g.isolate(a2);
    expect(g.has(a2)).toBe(true);
    expect(a2.inData[0]?.peer).toBeUndefined();
    expect(a2.outData[0]?.peers).toEqual([]);
    expect(a2.outControl.peers).toEqual([]);
    expect(g.findNode('add')?.inData[0]?.peer).toBeUndefined();
    expect(g.findNode('b2')?.inControl.peers).toEqual([]);
  });

  it('bypasses a node, feeding its consumers from its input and bridging control edges', () => {
    const g = twoBranches();
    const a2 = g.findNode('a2') as Node;
    g.addControlEdge(g.findNode('x') as Node, a2);
    g.addControlEdge(a2, g.findNode('b2') as Node);
    g.bypass(a2);
    expect(g.findNode('add')?.producer(0)?.node.name).toBe('a1');
    expect(g.findNode('b2')?.inControl.peers.map((p) => p.node.name)).toEqual(['x']);
    expect(() => g.bypass(opNode(g, 'lonely', 'Relu'))).toThrow(/not linked/);
  });

  it('moves every use of one output to another', () => {
    const g = twoBranches();
    g.replaceAllUses(g.findNode('x')?.outData[0] as never, g.findNode('b1')?.outData[0] as never);
    expect(g.findNode('a1')?.producer(0)?.node.name).toBe('b1');
    expect(g.findNode('x')?.outData[0]?.peers).toEqual([]);
  });
});

describe('clone with subgraphs', () => {
  it('deep-copies the tree: same description, parents remapped, no shared nodes or descs', () => {
    const g = controlFlowGraph();
    const copy = g.clone();
    expect(describeGraph(copy)).toBe(describeGraph(g));
    expect(g.clone('renamed').name).toBe('renamed');
    // the fixture's dangling graph-attribute references are its only findings
    expect(verifyGraph(copy).filter((d) => d.code !== 'TSGE-E1020')).toEqual([]);
    for (const [name, sub] of copy.subgraphs) {
      const original = g.subgraph(name) as Graph;
      // identity checks as booleans: vitest's not.toBe deep-compares the (cyclic) graphs
      expect(sub === original).toBe(false);
      expect(sub.owner === copy).toBe(true);
      expect(sub.parentNode === original.parentNode).toBe(false);
      expect(sub.parentNode?.name).toBe(original.parentNode?.name);
      expect(sub.parentNode?.graph === copy || [...copy.subgraphs.values()].includes(sub.parentNode?.graph as Graph)).toBe(true);
    }
    copy.findNode('relu')?.opDesc.attrs.set('a_int', attr.int(0));
    (copy.findNode('fused')?.opDesc.inputOffsets as number[])[0] = 1;
    expect(g.findNode('relu')?.opDesc.attrs.get('a_int')).toEqual(attr.int(-(2 ** 40)));
    expect(g.findNode('fused')?.opDesc.inputOffsets).toEqual([64, 0, 128]);
  });

  it('registers nested subgraphs under the root and removes them by name', () => {
    const g = controlFlowGraph();
    expect(g.subgraph('inner_body')?.owner).toBe(g);
    expect(g.subgraphsOf(g.findNode('if') as Node).map((s) => s.name)).toEqual(['then_branch', 'else_branch']);
    expect(() => g.addSubgraph(g.subgraph('else_branch') as Graph, g.findNode('if') as Node)).toThrow(/already used/);
    g.removeSubgraph('else_branch');
    expect(g.subgraph('else_branch')).toBeUndefined();
    expect(verifyGraph(g).map((d) => d.code)).toContain('TSGE-E1020');
  });
});

describe('opsetOf', () => {
  it('reads a node its own _opset, else the root import of its domain, else 0', () => {
    const graph = new Graph('g');
    graph.attrs.set('_opset_imports', {
      kind: 'named_attrs',
      value: {
        name: 'imports',
        attrs: new Map([
          ['', attr.int(17)],
          ['com.microsoft', attr.int(1)],
        ]),
      },
    });
    const onnx = graph.addNode(createOpDesc({ name: 'a', type: 'Relu' }));
    const inlined = graph.addNode(createOpDesc({ name: 'b', type: 'Relu', attrs: [['_opset', attr.int(13)]] }));
    const ms = graph.addNode(createOpDesc({ name: 'c', type: 'Gelu', domain: 'com.microsoft' }));
    const other = graph.addNode(createOpDesc({ name: 'd', type: 'X', domain: 'org.example' }));
    expect([onnx, inlined, ms, other].map(opsetOf)).toEqual([17, 13, 1, 0]);
  });
});
