import { type Graph, type Node, constValueOf, toNumberArray } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { parseOnnx } from '../index.js';
import { DT, a, encodeModel, node, value } from '../testing/build-model.js';

const localDomain = 'custom.fn';

describe('model-local functions', () => {
  it('inlines calls recursively, mapping formals and ref_attr_name attributes', async () => {
    // ScaledRelu(X) = Relu(Mul(X, Constant(alpha))); Double(X) = ScaledRelu(X) with alpha 2, twice
    const scaledRelu = {
      name: 'ScaledRelu',
      domain: localDomain,
      input: ['X'],
      output: ['Y'],
      attribute: ['alpha'],
      attributeProto: [],
      node: [node('Constant', [], ['A'], [a.ref('value_float', 'alpha', 1)]), node('Mul', ['X', 'A'], ['T']), node('Relu', ['T'], ['Y'])],
      opsetImport: [{ domain: '', version: 21 }],
    };
    const twice = {
      name: 'Twice',
      domain: localDomain,
      input: ['X'],
      output: ['Y'],
      attribute: [],
      attributeProto: [a.float('alpha', 3)],
      node: [
        node('ScaledRelu', ['X'], ['M'], [a.ref('alpha', 'alpha', 1)], localDomain),
        node('ScaledRelu', ['M'], ['Y'], [a.float('alpha', 2)], localDomain),
      ],
      opsetImport: [
        { domain: '', version: 21 },
        { domain: localDomain, version: 1 },
      ],
    };
    const bytes = encodeModel({
      nodes: [node('Twice', ['x'], ['y'], [], localDomain), node('Twice', ['y'], ['z'], [a.float('alpha', 5)], localDomain)],
      inputs: [value('x', DT.FLOAT, [2])],
      outputs: [value('z', DT.FLOAT, [2])],
      opsets: { [localDomain]: 1 },
      functions: [scaledRelu, twice],
    });
    const result = await parseOnnx({ bytes });
    expect(result.diagnostics).toEqual([]);
    const g = result.graph as Graph;
    expect(g.nodes.filter((n) => n.opDesc.domain === localDomain)).toHaveLength(0);
    expect(g.nodesOfType('Relu')).toHaveLength(4);
    // alphas: default 3 then literal 2 (first call), caller's 5 then 2 (second call)
    const alphas = g.nodesOfType('Mul').map((m: Node) => {
      const t = constValueOf(m.inData[1]?.peer?.node);
      return t ? toNumberArray(t)[0] : undefined;
    });
    expect(alphas.sort()).toEqual([2, 2, 3, 5]);
    const out = g.outputNode() as Node;
    expect(out.inData[0]?.peer?.node.type).toBe('Relu');
    expect(out.opDesc.inputNames).toEqual(['z']);
  });

  it('reports recursion instead of looping', async () => {
    const loop = { name: 'Self', domain: localDomain, input: ['X'], output: ['Y'], node: [node('Self', ['X'], ['Y'], [], localDomain)] };
    const result = await parseOnnx({
      bytes: encodeModel({
        nodes: [node('Self', ['x'], ['y'], [], localDomain)],
        inputs: [value('x')],
        outputs: [value('y')],
        opsets: { [localDomain]: 1 },
        functions: [loop],
      }),
    });
    expect(result.diagnostics.some((d) => /deeper/.test(d.message))).toBe(true);
  });
});
