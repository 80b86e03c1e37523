import type { Graph, Node } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { parseOnnx } from '../index.js';
import { DT, a, encodeModel, node, value } from '../testing/build-model.js';

const ms = 'com.microsoft';
async function parse(nodes: ReturnType<typeof node>[], inputs: string[], outputs: string[]): Promise<Graph> {
  const result = await parseOnnx({
    bytes: encodeModel({
      nodes,
      inputs: inputs.map((n) => value(n, DT.FLOAT, [2, 4])),
      outputs: outputs.map((n) => value(n)),
      opsets: { [ms]: 1 },
    }),
  });
  expect(result.diagnostics).toEqual([]);
  return result.graph as Graph;
}

describe('com.microsoft contrib ops', () => {
  it('maps FastGelu with bias to Add + Gelu(tanh)', async () => {
    const g = await parse([node('FastGelu', ['x', 'b'], ['y'], [], ms)], ['x', 'b'], ['y']);
    const gelu = g.nodesOfType('Gelu')[0] as Node;
    expect(gelu.opDesc.domain).toBe('ai.onnx');
    expect(gelu.opDesc.attrs.get('approximate')).toEqual({ kind: 'string', value: 'tanh' });
    expect(gelu.inData[0]?.peer?.node.type).toBe('Add');
  });

  it('maps SkipLayerNormalization to Add + LayerNormalization and keeps the sum output', async () => {
    const g = await parse(
      [node('SkipLayerNormalization', ['x', 's', 'gamma', 'beta'], ['y', '', '', 'sum'], [a.float('epsilon', 1e-5)], ms)],
      ['x', 's', 'gamma', 'beta'],
      ['y', 'sum'],
    );
    const ln = g.nodesOfType('LayerNormalization')[0] as Node;
    expect(ln.opDesc.attrs.get('epsilon')?.value).toBeCloseTo(1e-5);
    const add = ln.inData[0]?.peer?.node as Node;
    expect(add.type).toBe('Add');
    const out = g.outputNode() as Node;
    expect(out.inData[1]?.peer?.node.type).toBe('Identity');
    expect(out.inData[1]?.peer?.node.inData[0]?.peer?.node).toBe(add);
  });

  it('maps Gelu, BiasGelu and QuickGelu; leaves Attention for the support check', async () => {
    const g = await parse(
      [
        node('Gelu', ['x'], ['a'], [], ms),
        node('BiasGelu', ['a', 'b'], ['c'], [], ms),
        node('QuickGelu', ['c'], ['d'], [], ms),
        node('Attention', ['d'], ['y'], [], ms),
      ],
      ['x', 'b'],
      ['y'],
    );
    expect(g.nodesOfType('Gelu')).toHaveLength(2);
    expect(g.nodesOfType('Sigmoid')).toHaveLength(1);
    expect(g.nodesOfType('Attention')[0]?.opDesc.domain).toBe(ms);
  });

  it('keeps contrib ops without a rewrite in their domain with their attributes', async () => {
    const g = await parse(
      [
        node('MatMulNBits', ['x', 'b', 's'], ['m'], [a.int('K', 4), a.int('N', 2), a.int('block_size', 16), a.int('bits', 4)], ms),
        node('SkipSimplifiedLayerNormalization', ['m', 'x', 'g'], ['n'], [a.float('epsilon', 1e-6)], ms),
        node('SimplifiedLayerNormalization', ['n', 'g'], ['y'], [a.int('axis', -1)]),
      ],
      ['x', 'b', 's', 'g'],
      ['y'],
    );
    const nbits = g.nodesOfType('MatMulNBits')[0] as Node;
    expect(nbits.opDesc.domain).toBe(ms);
    expect(nbits.opDesc.attrs.get('block_size')).toEqual({ kind: 'int', value: 16 });
    expect(g.nodesOfType('SkipSimplifiedLayerNormalization')[0]?.opDesc.domain).toBe(ms);
    expect(g.nodesOfType('SimplifiedLayerNormalization')[0]?.opDesc.domain).toBe('ai.onnx');
  });
});
