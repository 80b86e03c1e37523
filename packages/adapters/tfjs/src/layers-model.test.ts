// loadLayersModel through tsge on a real Keras layers model (Embedding + backwards GRU) against
// TensorFlow.js's own loadLayersModel on its wasm backend.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LayersModel, TsgeError, loadGraphModel, loadLayersModel } from './index.js';
import { fileHandler, maxAbsDiff, testdata, tfjsWasm, valuesOf } from './tfjs-wasm.fixture.js';

const tf = await tfjsWasm();
const file = path.join(testdata, 'layers_model/model.json');

describe('loadLayersModel', () => {
  let model: LayersModel;
  let reference: Awaited<ReturnType<typeof tf.loadLayersModel>>;
  beforeAll(async () => {
    model = await loadLayersModel(file, { tsge: { threads: 1 } });
    reference = await tf.loadLayersModel(fileHandler(file));
  }, 60_000);
  afterAll(async () => {
    await model.release();
    reference.dispose();
  });

  it("describes inputs and outputs as tfjs's SymbolicTensors do (unknown dims null)", () => {
    const shapes = (list: readonly { shape?: readonly (number | null)[]; dtype: string }[]) =>
      list.map((t) => ({ shape: t.shape, dtype: t.dtype }));
    expect(shapes(model.inputs)).toEqual(shapes(reference.inputs));
    expect(shapes(model.outputs)).toEqual(shapes(reference.outputs));
  });

  it('names inputs and outputs as tfjs does, and takes a map keyed by those names', async () => {
    expect(model.inputs.map((t) => t.name)).toEqual(reference.inputs.map((t) => t.name));
    expect(model.outputs.map((t) => t.name)).toEqual(reference.outputs.map((t) => t.name));
    expect(model.inputNodes).toEqual(['embedding_Embedding2_input']);
    const ids = tf.floor(tf.randomUniform([2, 10], 0, 100, 'float32', 5));
    const want = reference.execute({ embedding_Embedding2_input: ids }, 'gru_GRU1/gru_GRU1') as InstanceType<typeof tf.Tensor>;
    const got = model.execute({ embedding_Embedding2_input: ids }, 'gru_GRU1/gru_GRU1') as InstanceType<typeof tf.Tensor>;
    expect(maxAbsDiff(Array.from(got.dataSync()), Array.from(want.dataSync()))).toBeLessThanOrEqual(1e-5);
    tf.dispose([ids, want, got]);
  });

  it('predicts what tfjs-wasm predicts, whole and in batches, for float and int32 ids', async () => {
    const ids = tf.floor(tf.randomUniform([5, 10], 0, 100, 'float32', 9));
    const want = await valuesOf(reference.predict(ids) as InstanceType<typeof tf.Tensor>);
    for (const x of [ids, tf.cast(ids, 'int32')]) {
      for (const args of [{}, { batchSize: 2 }, { batchSize: 32 }]) {
        const got = await valuesOf((await model.predictAsync(x, args)) as InstanceType<typeof tf.Tensor>);
        expect(got.shape).toEqual(want.shape);
        expect(maxAbsDiff(got.data, want.data)).toBeLessThanOrEqual(1e-5);
      }
    }
    const executed = await valuesOf((await model.executeAsync(ids)) as InstanceType<typeof tf.Tensor>);
    expect(maxAbsDiff(executed.data, want.data)).toBeLessThanOrEqual(1e-5);
    ids.dispose();
  });

  it('predicts synchronously (predict, predictOnBatch, execute) what tfjs-wasm predicts, whole and in batches', () => {
    const ids = tf.floor(tf.randomUniform([5, 10], 0, 100, 'float32', 3));
    const want = reference.predict(ids) as InstanceType<typeof tf.Tensor>;
    const got = [
      model.predict(ids),
      model.predict(tf.cast(ids, 'int32'), { batchSize: 2 }),
      model.predictOnBatch(ids),
      model.execute(ids),
    ] as InstanceType<typeof tf.Tensor>[];
    for (const tensor of got) {
      expect(tensor.shape).toEqual(want.shape);
      expect(maxAbsDiff(Array.from(tensor.dataSync()), Array.from(want.dataSync()))).toBeLessThanOrEqual(1e-5);
    }
    tf.dispose([ids, want, ...got]);
  });

  it('refuses bad inputs with coded errors', async () => {
    const x = tf.zeros([2, 10]);
    const wrong = tf.zeros([2, 11]);
    expect(() => model.predict(wrong)).toThrow(/TSGE-E8309.*to have shape \[null,10\]/);
    await expect(model.predictAsync(wrong)).rejects.toThrow(/TSGE-E8309.*to have shape \[null,10\] but got array with shape \[2,11\]/);
    await expect(model.predictAsync(x, { batchSize: 0 })).rejects.toSatisfy((e) => TsgeError.isInstance(e) && e.code === 'TSGE-E8304');
    await expect(loadGraphModel(file)).rejects.toThrow(/TSGE-E8302.*loadLayersModel/);
    await expect(loadLayersModel(path.join(testdata, 'dense_model/model.json'))).rejects.toThrow(/TSGE-E8302.*loadGraphModel/);
    tf.dispose([x, wrong]);
  });
});
