import { type Graph, type Node, constValueOf, createOpRegistry } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { parseOnnx } from '../index.js';
import { DT, a, encodeModel, graph, node, value } from '../testing/build-model.js';

describe('support check and Constant forms', () => {
  it('reports every unsupported op at once with node, domain and opset', async () => {
    const ops = createOpRegistry([
      {
        specVersion: 'v1',
        domain: 'ai.onnx',
        type: 'Relu',
        sinceVersion: 14,
        inputs: [],
        outputs: [],
        attributes: [],
        typeConstraints: [],
        infer: () => {},
      },
    ]);
    const result = await parseOnnx(
      {
        bytes: encodeModel({
          nodes: [node('Relu', ['x'], ['a']), node('Frobnicate', ['a'], ['b']), node('Attention', ['b'], ['y'], [], 'com.microsoft')],
          inputs: [value('x')],
          outputs: [value('y')],
          opsets: { 'com.microsoft': 1 },
        }),
        path: 'm.onnx',
      },
      { extra: { ops } },
    );
    expect(result.graph).toBeUndefined();
    const unsupported = result.diagnostics.filter((d) => d.code === 'TSGE-E3002');
    expect(unsupported.map((d) => [d.location?.opType, d.location?.domain, d.location?.node])).toEqual([
      ['Frobnicate', 'ai.onnx', 'Frobnicate_b'],
      ['Attention', 'com.microsoft', 'Attention_y'],
    ]);
    expect(unsupported[0]?.message).toContain('opset 21');
    expect(unsupported[1]?.location?.file).toBe('m.onnx');
  });

  it('turns every Constant form into a Const node', async () => {
    const forms = [
      a.float('value_float', 1.5),
      a.floats('value_floats', [1, 2]),
      a.int('value_int', 7),
      a.ints('value_ints', [3, 4]),
      a.string('value_string', 'hi'),
    ];
    const nodes = forms.map((f, i) => node('Constant', [], [`c${i}`], [f]));
    const result = await parseOnnx({ bytes: encodeModel({ nodes, inputs: [], outputs: forms.map((_, i) => value(`c${i}`)) }) });
    const g = result.graph as Graph;
    const values = (g.outputNode() as Node).inData.map((d) => constValueOf(d.peer?.node));
    expect(values.map((t) => t?.type)).toEqual(['float32', 'float32', 'int64', 'int64', 'string']);
    expect(values.map((t) => t?.dims)).toEqual([[], [2], [], [2], []]);
    expect(values[4]?.data).toEqual(['hi']);
  });

  it('keeps initializers listed as inputs when asked, and applies input shape overrides', async () => {
    const bytes = encodeModel({
      nodes: [node('Add', ['x', 'w'], ['y'])],
      inputs: [value('x', DT.FLOAT, ['n', 2]), value('w', DT.FLOAT, [2])],
      outputs: [value('y')],
      initializers: [{ name: 'w', dims: [2], dataType: DT.FLOAT, floatData: [1, 2] }],
    });
    const asConst = (await parseOnnx({ bytes })).graph as Graph;
    expect(asConst.inputNodes().map((n) => n.opDesc.outputNames[0])).toEqual(['x']);
    expect(asConst.inputNodes()[0]?.opDesc.outputDescs[0]?.shape).toEqual(['n', 2]);
    const asInput = (await parseOnnx({ bytes }, { extra: { initializerInputs: ['w'] }, inputShapes: new Map([['x', [4, 2]]]) }))
      .graph as Graph;
    expect(asInput.inputNodes().map((n) => n.opDesc.outputNames[0])).toEqual(['x', 'w']);
    expect(asInput.inputNodes()[0]?.opDesc.outputDescs[0]?.shape).toEqual([4, 2]);
  });

  it('selects outputs by value name, node name or node:index (--out_nodes)', async () => {
    const bytes = encodeModel({
      nodes: [node('Neg', ['x'], ['a']), node('TopK', ['a', 'k'], ['v', 'i']), node('Relu', ['v'], ['y'])],
      inputs: [value('x', DT.FLOAT, [4]), value('k', DT.INT64, [1])],
      outputs: [value('y')],
    });
    const g = (await parseOnnx({ bytes }, { outputNodes: ['a', 'TopK_v:1'] })).graph as Graph;
    const out = g.outputNode() as Node;
    expect(out.inData.map((d) => [d.peer?.node.type, d.peer?.index])).toEqual([
      ['Neg', 0],
      ['TopK', 1],
    ]);
    expect(out.opDesc.inputNames).toEqual(['a', 'i']);
    const missing = await parseOnnx({ bytes }, { outputNodes: ['nope'] });
    expect(missing.diagnostics.map((d) => d.code)).toEqual(['TSGE-E5004']);
  });

  it('reports values nobody produces', async () => {
    const result = await parseOnnx({ bytes: encodeModel({ nodes: [node('Relu', ['ghost'], ['y'])], inputs: [], outputs: [value('y')] }) });
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics[0]?.message).toMatch(/ghost/);
  });

  it('orders nodes listed out of order', async () => {
    const g = (
      await parseOnnx({
        bytes: encodeModel({ nodes: [node('Relu', ['a'], ['y']), node('Neg', ['x'], ['a'])], inputs: [value('x')], outputs: [value('y')] }),
      })
    ).graph as Graph;
    expect(g.nodesOfType('Relu')[0]?.inData[0]?.peer?.node.type).toBe('Neg');
  });

  it('captures outer values in subgraphs built in code', async () => {
    const branch = (op: string) => graph({ nodes: [node(op, ['x'], [`${op}_out`])], inputs: [], outputs: [value(`${op}_out`)] }, op);
    const g = (
      await parseOnnx({
        bytes: encodeModel({
          nodes: [node('If', ['c'], ['y'], [a.graph('then_branch', branch('Relu')), a.graph('else_branch', branch('Neg'))])],
          inputs: [value('c', DT.BOOL, []), value('x', DT.FLOAT, [3])],
          outputs: [value('y')],
        }),
      })
    ).graph as Graph;
    const ifNode = g.nodesOfType('If')[0] as Node;
    expect(ifNode.inData.map((d) => d.peer?.node.opDesc.outputNames[0])).toEqual(['c', 'x']);
    expect(ifNode.opDesc.attrs.get('_implicit_inputs')).toEqual({ kind: 'int', value: 1 });
  });
});
