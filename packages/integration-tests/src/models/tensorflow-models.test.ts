// TensorFlow GraphDefs end to end: parse → compile (.om bytes) → load → run, against TensorFlow.js
// 4.22.0 (wasm backend) on the same GraphDef converted to the tfjs graph-model form in memory.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildModel, compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { isHostTensor } from '@tsge/metadef';
import { compareTensors, createRandom, randomTensor } from '@tsge/run';
import { describe, expect, it } from 'vitest';
import { TF_PROTO as protoFile, convNet, graphBytes, graphText } from './tf-graph-fixture.js';
import { graphDefToArtifacts, runTfjsGraph } from './tfjs-reference.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata/models/tensorflow/tf2onnx');

const cases: { file: string; shapes: Record<string, number[]>; fixed: Record<string, number> }[] = [
  { file: 'ae0.frozen.pb', shapes: { X: [3, 784] }, fixed: {} },
  { file: 'fc-layers.frozen.pb', shapes: { X: [3, 784] }, fixed: {} },
  // the RNN graphs apply dropout; inference feeds keep_prob = 1
  { file: 'gru.frozen.pb', shapes: { X: [3, 784], keep_prob: [] }, fixed: { keep_prob: 1 } },
  { file: 'lstm.frozen.pb', shapes: { X: [3, 784], keep_prob: [] }, fixed: { keep_prob: 1 } },
];

describe('TensorFlow GraphDefs match TensorFlow.js (wasm)', () => {
  for (const c of cases) {
    it(c.file, async () => {
      const file = path.join(testdata, c.file);
      const graph = await parseModel(file, { inputShapes: c.shapes });
      const om = await buildModel(graph, { inputShapes: c.shapes });
      const model = await loadModel(om, { threads: 1 });
      try {
        const random = createRandom(7);
        const feeds: Record<string, HostTensor> = {};
        for (const meta of model.inputMetadata) {
          const fixed = (c.fixed as Record<string, number>)[meta.name];
          feeds[meta.name] =
            fixed !== undefined
              ? { type: 'float32', dims: [], data: Float32Array.of(fixed) }
              : randomTensor(meta.dtype, (c.shapes as Record<string, number[]>)[meta.name] as number[], random);
        }
        const got = await model.run(feeds);
        const names = Object.keys(got);
        expect(names.length).toBeGreaterThan(0);
        const artifacts = graphDefToArtifacts(readFileSync(file), protoFile, c.fixed);
        const tfFeeds = Object.fromEntries(Object.entries(feeds).filter(([name]) => !(name in c.fixed)));
        const expected = await runTfjsGraph({ load: async () => artifacts }, tfFeeds, names);
        for (const [name, exp] of Object.entries(expected)) {
          const value = got[name];
          expect(isHostTensor(value)).toBe(true);
          const error = compareTensors(name, value as HostTensor, exp);
          expect(error.shapeMatches, `${name} shape`).toBe(true);
          expect(error.maxRelError, `${name} max relative error`).toBeLessThanOrEqual(1e-4);
        }
      } finally {
        await model.release();
      }
    }, 120_000);
  }
});

describe('an NHWC conv net written as .pbtxt', () => {
  it('matches TensorFlow.js and keeps no transposes between its layers', async () => {
    const nodes = convNet();
    const dir = mkdtempSync(path.join(tmpdir(), 'tsge-tf-'));
    const file = path.join(dir, 'convnet.pbtxt');
    writeFileSync(file, graphText(nodes));
    const graph = await parseModel(file);
    const parsedTransposes = graph.nodes.filter((n) => n.type === 'Transpose').length;
    expect(parsedTransposes).toBeGreaterThanOrEqual(8);
    const compiled = await compileModel(graph, {});
    const kinds = compiled.model.graph.nodes.map((n) => n.type);
    // one transpose at the NHWC input; the rest cancel (the head's Mean reduces H and W away)
    expect(kinds.filter((k) => k === 'Transpose').length).toBe(1);
    // with the transposes gone, conv + bias + activation (and the folded batch norm) fuse
    expect(kinds.filter((k) => k === 'FusedConv').length).toBe(3);
    const model = await loadModel(compiled.om, { threads: 1 });
    try {
      const feeds = { image: randomTensor('float32', [1, 12, 12, 3], createRandom(3)) };
      const got = await model.run(feeds);
      const expected = await runTfjsGraph({ load: async () => graphDefToArtifacts(graphBytes(nodes), protoFile) }, feeds, ['probs']);
      const error = compareTensors('probs', got.probs as HostTensor, expected.probs as HostTensor);
      expect(error.shapeMatches).toBe(true);
      expect(error.maxRelError).toBeLessThanOrEqual(1e-4);
    } finally {
      await model.release();
    }
  }, 120_000);
});
