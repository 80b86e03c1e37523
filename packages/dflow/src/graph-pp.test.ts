import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { FlowData, FlowGraph, FlowNode, FunctionPp, GraphPp, startFlow } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const mnist = path.resolve(here, '../../../../shared/testdata/models/onnx/mnist.onnx');
const fixtures = new URL('../test/functions.fixture.ts', import.meta.url).href;

function digitLike(seed: number): HostTensor {
  const data = new Float32Array(28 * 28);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 7919 + seed * 104729) % 255) / 255;
  return { type: 'float32', dims: [1, 1, 28, 28], data };
}

describe('GraphPp', () => {
  it('runs a model file and an .om as points, matching onnxruntime-node', async () => {
    const om = await buildModel(await parseModel(mnist));
    const x = new FlowData({ dtype: 'float32', shape: [1, 1, 28, 28] });
    const fromFile = new FlowNode(1, 1, { name: 'onnx', instances: 2 });
    fromFile.addProcessPoint(new GraphPp({ model: mnist, inputCount: 1, outputCount: 1 }));
    const fromOm = new FlowNode(1, 1, { name: 'om' });
    fromOm.addProcessPoint(new GraphPp({ model: om, inputCount: 1, outputCount: 1 }));
    const [a] = fromFile.call(x);
    const [b] = fromOm.call(x);
    const session = await startFlow(new FlowGraph([a!, b!]), { fetchTimeoutMs: 20000 });
    const reference = await ort.InferenceSession.create(mnist);
    try {
      for (let i = 0; i < 4; i++) await session.feed([digitLike(i)], { transactionId: i });
      for (let i = 0; i < 4; i++) {
        // with two instances, output 0 may come out of order: check each message by its transaction
        for (const m of await session.fetch()) {
          const input = digitLike(m.header.transactionId);
          const feeds = { [reference.inputNames[0]!]: new ort.Tensor('float32', input.data as Float32Array, [1, 1, 28, 28]) };
          const expected = (await reference.run(feeds))[reference.outputNames[0]!]!.data as Float32Array;
          const got = (m.value as HostTensor).data as Float32Array;
          expect(got.length).toBe(10);
          for (let k = 0; k < got.length; k++) expect(Math.abs((got[k] as number) - (expected[k] as number))).toBeLessThan(1e-3);
        }
      }
    } finally {
      await session.close();
      await reference.release();
    }
  });

  it('reports a point whose declared counts disagree with its model, and raw bytes fed to a model', async () => {
    const x = new FlowData();
    const bad = new FlowNode(1, 2, { name: 'mismatch' });
    bad.addProcessPoint(new GraphPp({ model: mnist, inputCount: 1, outputCount: 2 }));
    await expect(startFlow(new FlowGraph(bad.call(x)))).rejects.toMatchObject({
      code: 'TSGE-E8102',
      message: expect.stringMatching(/declares 2 outputs, its model has 1/),
    });
    const y = new FlowData();
    const [bytes] = new FlowNode(1, 1, { name: 'passthrough' })
      .addProcessPoint(new FunctionPp({ module: fixtures, export: 'slowIdentity', inputCount: 1, outputCount: 1 }))
      .call(y);
    const model = new FlowNode(1, 1, { name: 'model' });
    model.addProcessPoint(new GraphPp({ model: mnist, inputCount: 1, outputCount: 1 }));
    const session = await startFlow(new FlowGraph(model.call(bytes!)), { fetchTimeoutMs: 20000 });
    await session.feed([new Uint8Array(4)], { transactionId: 3 });
    const [m] = await session.fetch();
    expect(m!.error?.code).toBe('TSGE-E8108');
    expect(m!.error?.message).toMatch(/model failed on transaction 3: .*raw bytes/);
    await session.close();
  });
});
