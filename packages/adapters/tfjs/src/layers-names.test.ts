// tfjs's SymbolicTensor names from a Keras topology, against the names tfjs-layers itself gives
// models it builds (functional with two inputs and outputs, Sequential with and without InputLayer).
import { describe, expect, it } from 'vitest';
import { layersTensorNames } from './layers-names.js';
import type { ModelJson } from './model-source.js';
import { tfjsWasm } from './tfjs-wasm.fixture.js';

const tf = await tfjsWasm();
const topologyOf = (model: { toJSON(u: null, s: false): unknown }): ModelJson => ({ modelTopology: model.toJSON(null, false) });

describe('layersTensorNames', () => {
  it("gives the names tfjs gives a functional model's inputs and outputs", () => {
    const a = tf.input({ shape: [3], name: 'names_a' });
    const b = tf.input({ shape: [3], name: 'names_b' });
    const sum = tf.layers.add({ name: 'names_add' }).apply([a, b]) as never;
    const d1 = tf.layers.dense({ units: 2, name: 'names_d1' }).apply(sum) as never;
    const d2 = tf.layers.dense({ units: 1, name: 'names_d2' }).apply(d1) as never;
    const model = tf.model({ inputs: [a, b], outputs: [d2, d1], name: 'names_functional' });
    expect(layersTensorNames(topologyOf(model))).toEqual({
      inputs: model.inputs.map((t) => t.name),
      outputs: model.outputs.map((t) => t.name),
    });
    model.dispose();
  });

  it('gives the names tfjs gives Sequential models, with and without an InputLayer', () => {
    const plain = tf.sequential({ name: 'names_seq1' });
    plain.add(tf.layers.dense({ units: 2, inputShape: [4], name: 'names_s1' }));
    plain.add(tf.layers.dense({ units: 1, name: 'names_s2' }));
    const withInput = tf.sequential({
      name: 'names_seq2',
      layers: [tf.layers.inputLayer({ inputShape: [4], name: 'names_in' }), tf.layers.dense({ units: 3, name: 'names_s3' })],
    });
    for (const model of [plain, withInput]) {
      expect(layersTensorNames(topologyOf(model))).toEqual({
        inputs: model.inputs.map((t) => t.name),
        outputs: model.outputs.map((t) => t.name),
      });
      model.dispose();
    }
  });

  it('says nothing where the topology does not', () => {
    expect(layersTensorNames({ modelTopology: { class_name: 'Sequential', config: { layers: [] } } })).toEqual({});
    expect(layersTensorNames({})).toEqual({});
  });
});
