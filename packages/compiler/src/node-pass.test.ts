import { GraphBuilder, createTensor } from '@tsge/metadef';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { MAX_VISITS_PER_NODE, defineNodePass } from './node-pass.js';
import { PassManager } from './pass-manager.js';

describe('node passes', () => {
  const ops = createDefaultOpRegistry();

  it('revisits queued nodes until a fixpoint', () => {
    // Neg(Neg(Neg(Neg(x)))) collapses pair by pair; each removal re-queues the consumer
    const b = new GraphBuilder('negs', { ops });
    let v = b.input('x', 'float32', [2]);
    for (let i = 0; i < 4; i++) v = b.op('Neg', [v], { name: `neg${i}` });
    b.output(v, 'y');
    const graph = b.build();
    const pass = defineNodePass({
      name: 'double-negation',
      level: 1,
      visit(node, g, ctx) {
        const inner = node.inData[0]?.peer?.node;
        if (node.type !== 'Neg' || inner?.type !== 'Neg' || inner.outData[0]?.peers.length !== 1) return false;
        const consumers = node.outData[0]?.peers.map((p) => p.node) ?? [];
        g.bypass(node);
        g.bypass(inner);
        for (const c of consumers) ctx.revisit(c);
        ctx.count('double-negation');
        return true;
      },
    });
    const manager = new PassManager({ ops, target: 'js', level: 1 });
    manager.run(graph, [pass], 'test');
    expect(manager.counters['double-negation']).toBe(2);
    expect(graph.nodes.filter((n) => n.type === 'Neg')).toHaveLength(0);
  });

  it('stops a pass that never converges within its visit budget', () => {
    const b = new GraphBuilder('loop', { ops });
    const x = b.input('x', 'float32', [1]);
    b.output(b.op('Add', [x, b.constant('one', createTensor('float32', [1], Float32Array.of(1)))], { name: 'add' }), 'y');
    const graph = b.build();
    let visits = 0;
    const restless = defineNodePass({
      name: 'restless',
      level: 0,
      visit(node, _g, ctx) {
        visits++;
        ctx.revisit(node);
        return false;
      },
    });
    new PassManager({ ops, target: 'js', level: 0 }).run(graph, [restless], 'test');
    expect(visits).toBe(graph.nodeCount * MAX_VISITS_PER_NODE);
  });
});
