// TensorFlow.js model.json files end to end (parse → compile → load → run) against TensorFlow.js
// 4.22.0 on its wasm backend, which loads the same files.
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { compareTensors, createRandom, randomTensor } from '@tsge/run';
import { describe, expect, it } from 'vitest';
import { folderHandler, runTfjsGraph, runTfjsLayers } from './tfjs-reference.js';

const dir = path.resolve(process.cwd(), '../shared/testdata/models/tfjs');

async function compileAndRun(file: string, shapes: Record<string, number[]>, feeds: Record<string, HostTensor>) {
  const graph = await parseModel(file, { inputShapes: shapes });
  const model = await loadModel(await buildModel(graph, { inputShapes: shapes }), { threads: 1 });
  try {
    return await model.run(feeds);
  } finally {
    await model.release();
  }
}

describe('TensorFlow.js models match TensorFlow.js (wasm)', () => {
  for (const [name, file, input, shape] of [
    ['graph model (v1.7 converter)', 'graph_model/model.json', 'Placeholder', [2, 2]],
    ['graph model (v2.8 converter)', 'graph_model/model_new.json', 'Placeholder', [2, 2]],
    ['graph model with _FusedMatMul', 'dense_model/model.json', 'dense_dense1_input', [3, 1]],
  ] as const) {
    it(name, async () => {
      const modelFile = path.join(dir, file);
      const feeds = { [input]: randomTensor('float32', shape, createRandom(5)) };
      const got = await compileAndRun(modelFile, { [input]: [...shape] }, feeds);
      const names = Object.keys(got);
      expect(names.length).toBe(1);
      const expected = await runTfjsGraph(folderHandler(modelFile), feeds, names);
      for (const [out, exp] of Object.entries(expected)) {
        const error = compareTensors(out, got[out] as HostTensor, exp);
        expect(error.shapeMatches).toBe(true);
        expect(error.maxRelError).toBeLessThanOrEqual(1e-4);
      }
    }, 60_000);
  }

  it('layers model (Embedding, backwards GRU with hard sigmoid)', async () => {
    const modelFile = path.join(dir, 'layers_model/model.json');
    const random = createRandom(9);
    const ids = Float32Array.from({ length: 2 * 10 }, () => Math.floor(random() * 100));
    const feeds = { embedding_Embedding2: { type: 'float32', dims: [2, 10], data: ids } as HostTensor };
    const got = await compileAndRun(modelFile, { embedding_Embedding2: [2, 10] }, feeds);
    const outputs = Object.values(got) as HostTensor[];
    expect(outputs).toHaveLength(1);
    const [expected] = await runTfjsLayers(folderHandler(modelFile), feeds.embedding_Embedding2);
    const error = compareTensors('y', outputs[0] as HostTensor, expected as HostTensor);
    expect(error.shapeMatches).toBe(true);
    expect(error.maxRelError).toBeLessThanOrEqual(1e-4);
  }, 60_000);
});
