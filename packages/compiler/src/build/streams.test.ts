import { CONST, DATA, GraphBuilder, NET_OUTPUT, type Node, topologicalSort } from '@tsge/metadef';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { happensBefore, planStreams } from './streams.js';

describe('stream planning', () => {
  it('puts branches on streams, adds one event per needed sync and drops the redundant ones', () => {
    const ops = createDefaultOpRegistry();
    const b = new GraphBuilder('streams', { ops });
    const x = b.input('x', 'float32', [4]);
    const a1 = b.op('Relu', [x], { name: 'a1' });
    const a2 = b.op('Neg', [a1], { name: 'a2' });
    const b1 = b.op('Sigmoid', [x], { name: 'b1' });
    const c = b.op('Add', [a2, b1], { name: 'c' });
    const d = b.op('Mul', [c, b1], { name: 'd' }); // b1 is already synchronised through c
    b.output(d, 'y');
    const sorted = topologicalSort(b.build(), 'dfs');
    if (!sorted.ok) throw new Error('cycle');
    const order = sorted.order.filter((n) => n.type !== DATA && n.type !== CONST && n.type !== NET_OUTPUT);
    const plan = planStreams(order, 2);
    const byName = new Map(order.map((n) => [n.name, n] as [string, Node]));
    const stream = (name: string) => plan.streamOf.get(byName.get(name) as Node);
    expect(stream('a1')).toBe(stream('a2'));
    expect(stream('b1')).not.toBe(stream('a1'));
    expect(plan.syncs.map((s) => `${s.producer.name}->${s.consumer.name}`)).toEqual(['b1->c']);
    expect(plan.eventCount).toBe(1);
    expect(happensBefore(plan, byName.get('b1') as Node, byName.get('d') as Node)).toBe(true);
    expect(happensBefore(plan, byName.get('a2') as Node, byName.get('b1') as Node)).toBe(false);
    const single = planStreams(order, 1);
    expect(single.syncs).toEqual([]);
    expect(new Set(single.streamOf.values())).toEqual(new Set([0]));
  });
});
