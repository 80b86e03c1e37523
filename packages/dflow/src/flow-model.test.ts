import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFlowOm, writeFlowOm } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { FlowData, FlowGraph, FlowNode, FunctionPp, GraphPp, loadFlowModel, saveFlowModel, startFlow } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const mnist = path.resolve(here, '../../../../shared/testdata/models/onnx/mnist.onnx');
const fixtures = new URL('../test/functions.fixture.ts', import.meta.url).href;

function graph(): FlowGraph {
  const x = new FlowData({ name: 'digit', dtype: 'float32', shape: [1, 1, 28, 28] });
  const model = new FlowNode(1, 1, { name: 'mnist' });
  model.addProcessPoint(new GraphPp({ model: mnist, inputCount: 1, outputCount: 1 }));
  const scale = new FlowNode(1, 1, { name: 'scale', instances: 2 });
  scale.addProcessPoint(new FunctionPp({ module: fixtures, export: 'scale', params: { factor: 2 }, inputCount: 1, outputCount: 1 }));
  const [logits] = model.call(x);
  return new FlowGraph(scale.call(logits!), { name: 'digits' });
}

describe('flow models', () => {
  it('saves a graph as FLOW_MODEL + FLOW_SUBMODEL and runs it the same after loading', async () => {
    const input: HostTensor = { type: 'float32', dims: [1, 1, 28, 28], data: new Float32Array(784).map((_, i) => (i % 29) / 29) };
    const direct = await startFlow(graph());
    await direct.feed([input]);
    const [expected] = await direct.fetch();
    await direct.close();

    const bytes = await saveFlowModel(graph());
    const stored = readFlowOm(bytes).model!;
    expect(stored.header.modelType).toBe('flow');
    expect(stored.submodels.map((s) => s.name)).toEqual(['mnist']);
    const text = new TextDecoder().decode(stored.flowModel);
    expect(text).toContain('"module":"file:');
    expect(text).not.toContain('proc'); // code is never stored

    const model = await loadFlowModel(bytes, { allowModules: [fixtures] });
    expect(model.modules).toEqual([fixtures]);
    const session = await startFlow(model);
    await session.feed([input]);
    const [got] = await session.fetch();
    await session.close();
    expect(Array.from((got!.value as HostTensor).data as Float32Array)).toEqual(
      Array.from((expected!.value as HostTensor).data as Float32Array),
    );
  });

  it('rejects flow models that are malformed, name missing submodels or modules not allowed', async () => {
    const bytes = await saveFlowModel(graph());
    await expect(loadFlowModel(bytes, { allowModules: ['other'] })).rejects.toMatchObject({
      code: 'TSGE-E8111',
      message: expect.stringMatching(/not allowed/),
    });
    const stored = readFlowOm(bytes).model!;
    const doc = JSON.parse(new TextDecoder().decode(stored.flowModel));
    const variants: [string, (d: typeof doc) => void, RegExp][] = [
      ['version', (d) => (d.version = 2), /version 2 is not known/],
      ['spec version', (d) => (d.spec.version = 9), /unknown flow spec version 9/],
      ['file path', (d) => (d.spec.nodes[0].point.model = { kind: 'file', path: '/etc/passwd' }), /must name a submodel/],
      ['order', (d) => d.spec.nodes.reverse(), /does not come before it/],
      ['map', (d) => (d.spec.nodes[1].inputMap = [5]), /bad inputMap/],
      ['submodel', (d) => (d.spec.nodes[0].point.model.name = 'gone'), /submodel gone, which is missing/],
    ];
    for (const [what, mutate, message] of variants) {
      const d = JSON.parse(JSON.stringify(doc));
      mutate(d);
      const changed = writeFlowOm({
        modelName: 'digits',
        flowModel: new TextEncoder().encode(JSON.stringify(d)),
        submodels: stored.submodels,
      });
      await expect(loadFlowModel(changed), what).rejects.toMatchObject({ code: 'TSGE-E8111', message: expect.stringMatching(message) });
    }
    await expect(loadFlowModel(bytes.subarray(0, 300))).rejects.toMatchObject({ code: expect.stringMatching(/TSGE-E200/) });
  });

  it('refuses to store in-process functions', async () => {
    const x = new FlowData();
    const node = new FlowNode(1, 1, { name: 'inline' });
    node.addProcessPoint(
      new FunctionPp({ implementation: { specVersion: 'v1', proc: (inputs) => inputs }, inputCount: 1, outputCount: 1 }),
    );
    await expect(saveFlowModel(new FlowGraph(node.call(x)))).rejects.toMatchObject({ code: 'TSGE-E8116' });
  });
});
