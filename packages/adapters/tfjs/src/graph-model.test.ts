// loadGraphModel through tsge against TensorFlow.js's own loadGraphModel (wasm backend) on the
// same files: the same surface (names, TensorInfo, modelVersion) and the same outputs.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphModel, type ModelInputs, TsgeError, loadGraphModel } from './index.js';
import { fileHandler, maxAbsDiff, testdata, tfjsWasm, valuesOf } from './tfjs-wasm.fixture.js';

const tf = await tfjsWasm();
const dense = path.join(testdata, 'dense_model/model.json');
const code = (expected: string) => (e: unknown) => TsgeError.isInstance(e) && e.code === expected;

async function expectError(promise: Promise<unknown> | (() => unknown), expected: string, words?: string): Promise<void> {
  let error: unknown;
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (e) {
    error = e;
  }
  expect(error).toSatisfy(code(expected));
  if (words) expect((error as Error).message).toContain(words);
}

describe('loadGraphModel', () => {
  let model: GraphModel;
  let reference: Awaited<ReturnType<typeof tf.loadGraphModel>>;
  beforeAll(async () => {
    model = await loadGraphModel(dense, { tsge: { threads: 1 } });
    reference = await tf.loadGraphModel(fileHandler(dense));
  }, 60_000);
  afterAll(async () => {
    await model.release();
    reference.dispose();
  });

  it("has tfjs's surface: node names, TensorInfo, version, signature", () => {
    expect(model.inputNodes).toEqual(reference.inputNodes);
    expect(model.outputNodes).toEqual(reference.outputNodes);
    expect(model.inputs).toEqual(reference.inputs);
    expect(model.outputs.map((o) => o.name)).toEqual(reference.outputs.map((o) => o.name));
    expect(model.outputs[0]).toMatchObject({ shape: [-1, 1], dtype: 'float32' });
    expect(model.modelVersion).toBe(reference.modelVersion);
    expect(model.modelSignature).toEqual(reference.modelSignature);
    expect(model.metadata).toEqual(reference.metadata);
  });

  it('gives the outputs tfjs-wasm gives, for a tensor, an array and a map, at any batch size', async () => {
    for (const rows of [3, 5]) {
      const x = tf.randomUniform([rows, 1], -2, 2, 'float32', rows);
      const want = await valuesOf(reference.execute(x) as never);
      const forms: ModelInputs[] = [x, [x], { dense_dense1_input: x }, { 'dense_dense1_input:0': x }];
      for (const inputs of forms) {
        const got = (await model.executeAsync(inputs)) as InstanceType<typeof tf.Tensor>;
        expect(got).toBeInstanceOf(tf.Tensor);
        const values = await valuesOf(got);
        expect(values.shape).toEqual(want.shape);
        expect(maxAbsDiff(values.data, want.data)).toBeLessThanOrEqual(1e-5);
        got.dispose();
      }
      const predicted = (await model.predictAsync(x)) as InstanceType<typeof tf.Tensor>;
      expect(maxAbsDiff((await valuesOf(predicted)).data, want.data)).toBeLessThanOrEqual(1e-5);
      // outputs by name: a string gives a tensor, a list of one too (as tfjs)
      expect(await model.executeAsync(x, 'Identity:0')).toBeInstanceOf(tf.Tensor);
      expect(await model.executeAsync(x, ['Identity'])).toBeInstanceOf(tf.Tensor);
      expect(await model.executeAsync(x, ['Identity', 'Identity'])).toHaveLength(2);
      x.dispose();
    }
  });

  it('gives the same outputs synchronously (execute, predict) as tfjs-wasm', () => {
    const x = tf.randomUniform([4, 1], -2, 2, 'float32', 7);
    const want = reference.execute(x) as InstanceType<typeof tf.Tensor>;
    for (const got of [model.execute(x), model.execute({ dense_dense1_input: x }, 'Identity'), model.predict(x)]) {
      expect(got).toBeInstanceOf(tf.Tensor);
      const tensor = got as InstanceType<typeof tf.Tensor>;
      expect(tensor.shape).toEqual(want.shape);
      expect(maxAbsDiff(Array.from(tensor.dataSync()), Array.from(want.dataSync()))).toBeLessThanOrEqual(1e-5);
      tensor.dispose();
    }
    expect(() => model.execute(tf.zeros([2, 3]))).toThrow(/TSGE-E8309.*must be \[-1,1\], but was \[2,3\]/);
    tf.dispose([x, want]);
  });

  it('fetches intermediate nodes as tfjs does: compiled once per set of outputs, then synchronously too', async () => {
    const x = tf.randomUniform([3, 1], -2, 2, 'float32', 11);
    const inner = 'StatefulPartitionedCall/sequential_1/dense_Dense1/BiasAdd';
    const outputs = [inner, 'Identity', `${inner}:0`];
    const want = reference.execute(x, outputs) as InstanceType<typeof tf.Tensor>[];
    // a set not compiled yet cannot be compiled synchronously
    await expectError(() => model.execute(x, outputs), 'TSGE-E8313', 'await model.executeAsync(inputs, outputs)');
    const got = (await model.executeAsync(x, outputs)) as InstanceType<typeof tf.Tensor>[];
    const again = model.execute(x, outputs) as InstanceType<typeof tf.Tensor>[];
    for (const list of [got, again]) {
      expect(list).toHaveLength(3);
      for (const [i, tensor] of list.entries()) {
        expect(tensor.shape).toEqual(want[i]?.shape);
        expect(maxAbsDiff((await valuesOf(tensor)).data, (await valuesOf(want[i] as never)).data)).toBeLessThanOrEqual(1e-5);
      }
    }
    await expectError(model.executeAsync(x, [inner, 'not/a/node']), 'TSGE-E8308', "The output 'not/a/node' is not found in the graph");
    tf.dispose([x, ...want, ...got, ...again]);
  });

  it("rejects bad inputs and outputs in tfjs's words", async () => {
    const x = tf.zeros([2, 1]);
    await expectError(
      model.executeAsync(tf.zeros([2, 3])),
      'TSGE-E8309',
      "The shape of dict['dense_dense1_input'] provided in model.execute(dict) must be [-1,1], but was [2,3]",
    );
    await expectError(
      model.executeAsync(tf.zeros([2, 1], 'int32')),
      'TSGE-E8309',
      "The dtype of dict['dense_dense1_input'] provided in model.execute(dict) must be float32, but was int32",
    );
    await expectError(model.executeAsync({ y: x }), 'TSGE-E8305', 'The dict provided in model.execute(dict) has keys: [y]');
    await expectError(model.executeAsync({}), 'TSGE-E8307', 'Missing the following inputs: [dense_dense1_input]');
    await expectError(model.executeAsync([x, x]), 'TSGE-E8306', 'Input tensor count mismatch');
    await expectError(model.executeAsync(x, 'nope'), 'TSGE-E8308', "The output 'nope' is not found in the graph");
    const gone = tf.zeros([1, 1]);
    gone.dispose();
    await expectError(model.executeAsync(gone), 'TSGE-E8309', 'Tensor is disposed');
    x.dispose();
  });
});

describe('model sources', () => {
  it('takes a path, a folder, a file:// URL and an IOHandler, and gives the same outputs', async () => {
    const x = tf.tensor([[0.5], [-1.5]]);
    const results: number[][] = [];
    for (const source of [dense, path.dirname(dense), pathToFileURL(dense).href, pathToFileURL(dense), fileHandler(dense)]) {
      const model = await loadGraphModel(source, { tsge: { threads: 1 } });
      results.push((await valuesOf((await model.executeAsync(x)) as never)).data);
      await model.release();
    }
    for (const r of results) expect(r).toEqual(results[0]);
    x.dispose();
  }, 60_000);

  it('runs a model without signature (v1.7 converter) as tfjs does', async () => {
    const file = path.join(testdata, 'graph_model/model.json');
    const model = await loadGraphModel(fileHandler(file), { tsge: { threads: 1 } });
    const reference = await tf.loadGraphModel(fileHandler(file));
    expect(model.inputNodes).toEqual(reference.inputNodes);
    expect(model.outputNodes).toEqual(reference.outputNodes);
    expect(model.metadata).toEqual(reference.metadata);
    const x = tf.tensor([
      [1, 2],
      [3, 4],
    ]);
    const want = await valuesOf(reference.execute(x) as never);
    const got = await valuesOf((await model.executeAsync({ Placeholder: x })) as never);
    expect(got.shape).toEqual(want.shape);
    expect(maxAbsDiff(got.data, want.data)).toBeLessThanOrEqual(1e-5);
    await model.release();
    reference.dispose();
    x.dispose();
  }, 60_000);

  it('refuses what it cannot load with coded errors', async () => {
    await expectError(loadGraphModel(null as never), 'TSGE-E8302', 'modelUrl in loadGraphModel() cannot be null');
    await expectError(loadGraphModel('https://example.com/model.json'), 'TSGE-E8302', 'tf.io.http(url)');
    await expectError(loadGraphModel('indexeddb://my-model'), 'TSGE-E8302', 'unknown scheme');
    await expectError(loadGraphModel({} as never), 'TSGE-E8302', 'does not have the `load` method implemented');
    await expectError(loadGraphModel('/nonexistent/model.json'), 'TSGE-E3001', '/nonexistent/model.json');
    await expectError(loadGraphModel(path.join(testdata, 'layers_model/model.json')), 'TSGE-E8302', 'load it with loadLayersModel()');
    await expectError(loadGraphModel({ load: async () => ({ weightSpecs: [] }) } as never), 'TSGE-E8303', 'no modelTopology');
    await expectError(loadGraphModel(dense, { requestInit: {} }), 'TSGE-E8304', 'tf.io.http(url, options)');
    await expectError(loadGraphModel(dense, { tsge: { thread: 1 } as never }), 'TSGE-E8304', 'tsge.thread');
    // weights the handler does not deliver are the parser's error, naming the weight
    const truncated: Parameters<typeof loadGraphModel>[0] = {
      load: async () => ({ ...(await fileHandler(dense).load?.()), weightData: new ArrayBuffer(4) }) as never,
    };
    await expectError(loadGraphModel(truncated), 'TSGE-E3108', 'needs');
  });

  it('fails runs after dispose with TSGE-E8311', async () => {
    const model = await loadGraphModel(dense, { tsge: { threads: 1 } });
    model.dispose();
    await model.release();
    await expectError(model.executeAsync(tf.zeros([1, 1])), 'TSGE-E8311', 'disposed');
  });
});
