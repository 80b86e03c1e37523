import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../builder/graph-builder.js';
import { createTensorDesc } from '../types/tensor-desc.js';
import { topologicalSort } from './topo.js';

const f = (shape: number[]) => ({ outputDescs: [createTensorDesc('float32', shape)] });

describe('Graph', () => {
  it('builds, sorts and clones a small graph', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [2, 3]);
    const a = b.op('Relu', [x], { name: 'a', ...f([2, 3]) });
    const c = b.op('Sigmoid', [x], { name: 'c', ...f([2, 3]) });
    const d = b.op('Add', [a, c], { name: 'd', ...f([2, 3]) });
    b.output(d, 'y');
    const g = b.build();
    const sorted = topologicalSort(g);
    expect(sorted.ok).toBe(true);
    if (sorted.ok) expect(sorted.order.map((n) => n.name)).toEqual(['x', 'a', 'c', 'd', 'NetOutput']);
    const dfs = topologicalSort(g, 'dfs');
    if (dfs.ok) expect(dfs.order.map((n) => n.name)).toEqual(['x', 'a', 'c', 'd', 'NetOutput']);
    const copy = g.clone('g2');
    expect(copy.nodes.map((n) => n.name)).toEqual(g.nodes.map((n) => n.name));
    expect(copy.findNode('d')?.producer(1)?.node.name).toBe('c');
    expect(copy.findNode('d')?.producer(1)?.node === g.findNode('c')).toBe(false);
  });

  it('reports the nodes on a cycle', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    const a = b.op('Add', [x, undefined], { name: 'a', ...f([1]) });
    const c = b.op('Relu', [a], { name: 'c', ...f([1]) });
    b.graph.addEdge(c.node, 0, a.node, 1);
    const r = topologicalSort(b.graph);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.cycle.map((n) => n.name).sort()).toEqual(['a', 'c']);
  });

  it('bypasses a node and keeps consumers fed', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    const id = b.op('Identity', [x], { name: 'id', ...f([1]) });
    const r = b.op('Relu', [id], { name: 'r', ...f([1]) });
    b.output(r);
    const g = b.build();
    g.bypass(id.node);
    expect(g.findNode('id')).toBeUndefined();
    expect(g.findNode('r')?.producer(0)?.node.name).toBe('x');
    expect(x.anchor.peers.length).toBe(1);
  });
});
