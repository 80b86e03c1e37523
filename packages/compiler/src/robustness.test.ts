import type { Node, OpRegistry } from '@tsge/metadef';
import { TsgeError, attr, createTensor } from '@tsge/metadef';
import { readOm } from '@tsge/om';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { compile } from './compile.js';
import { randomFloats, smallCnn } from './test-graphs.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);

describe('bad graphs', () => {
  it('reject with TsgeError diagnostics, never another exception (300 random mutations)', async () => {
    const rand = randomFloats(4000, 77);
    let k = 0;
    const next = () => ((rand[k++ % rand.length] as number) + 1) / 2;
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length) % list.length] as T;
    const outcomes = { compiled: 0, rejected: 0 };
    for (let i = 0; i < 300; i++) {
      const graph = smallCnn(ops);
      const nodes = graph.nodes;
      for (let m = 0, n = 1 + Math.floor(next() * 3); m < n; m++) {
        const node: Node = pick(nodes);
        const kind = Math.floor(next() * 6);
        if (kind === 0 && node.inData.length) graph.unlink(pick(node.inData));
        else if (kind === 1) {
          const from = pick(nodes);
          const to = pick(nodes);
          if (from.outData.length && to.inData.length) graph.link(pick(from.outData), pick(to.inData));
        } else if (kind === 2)
          node.opDesc.attrs.set(
            pick(['pads', 'kernel_shape', 'axis', 'perm', 'strides']),
            pick([attr.ints([-5, 99]), attr.int(42), attr.string('x'), attr.floats([])]),
          );
        else if (kind === 3 && node.type === 'Const')
          node.opDesc.attrs.set('value', attr.tensor(createTensor('float32', [3, 1], Float32Array.of(1, 2, 3))));
        else if (kind === 4) node.opDesc.name = pick(nodes).name;
        else if (kind === 5) node.opDesc.type = pick(['Relu', 'Conv', 'Gemm', 'Reshape', 'Unknown']);
      }
      try {
        const r = await compile(graph, { ops, kernels, verify: true });
        expect(readOm(r.om).diagnostics).toEqual([]);
        outcomes.compiled++;
      } catch (e) {
        if (!TsgeError.isInstance(e)) throw e;
        expect(e.diagnostics.length).toBeGreaterThan(0);
        outcomes.rejected++;
      }
    }
    expect(outcomes.rejected).toBeGreaterThan(50);
    expect(outcomes.compiled).toBeGreaterThan(10);
  });
});
