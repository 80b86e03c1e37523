import { compile } from '@tsge/compiler';
import { GraphBuilder, type HostTensor, createTensor } from '@tsge/metadef';
import { createKernelRegistryOf } from '@tsge/metadef';
import { interpretGraph, jsKernelLibrary } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { algebraicIdentitiesPass } from './index.js';

describe('custom pass example', () => {
  it('removes identities through compile(customPasses) without changing results', async () => {
    const ops = createDefaultOpRegistry();
    const kernels = createKernelRegistryOf([jsKernelLibrary]);
    const b = new GraphBuilder('identities', { ops });
    const x = b.input('x', 'float32', [2, 2]);
    const one = b.constant('one', createTensor('float32', [], Float32Array.of(1)));
    const zero = b.constant('zero', createTensor('float32', [1], Float32Array.of(0)));
    const wide = b.constant('wide', createTensor('float32', [3, 2, 2], new Float32Array(12)));
    const y = b.op('Relu', [b.op('Add', [b.op('Mul', [x, one], { name: 'times_one' }), zero], { name: 'plus_zero' })], { name: 'relu' });
    const broadcast = b.op('Add', [x, wide], { name: 'broadcast' });
    b.output(y, 'y');
    b.output(broadcast, 'z');
    const graph = b.build();
    const feeds = { x: createTensor('float32', [2, 2], Float32Array.of(-1, 2, -3, 4)) };
    const plain = await compile(graph, { ops, kernels, optLevel: 1 });
    const custom = await compile(graph, { ops, kernels, optLevel: 1, customPasses: [algebraicIdentitiesPass] });
    expect(custom.summary.counters['identities-removed']).toBe(2);
    // the two ops go, and their constants with them (dead-code elimination)
    expect(custom.summary.nodesAfter).toBe(plain.summary.nodesAfter - 4);
    expect(custom.model.graph.findNode('times_one')).toBeUndefined();
    expect(plain.model.graph.findNode('times_one')).toBeDefined();
    expect(custom.model.graph.findNode('broadcast')).toBeDefined();
    const run = (model: typeof plain.model) => interpretGraph(model.graph, feeds, { kernels, weights: model.weights });
    const expected = run(plain.model);
    const actual = run(custom.model);
    expect([...((actual[0] as HostTensor).data as Float32Array)]).toEqual([...((expected[0] as HostTensor).data as Float32Array)]);
    expect((actual[1] as HostTensor).dims).toEqual([3, 2, 2]);
  });
});
