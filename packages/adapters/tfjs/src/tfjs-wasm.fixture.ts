// Test helpers: TensorFlow.js 4.22.0 on its wasm backend (the independent reference), and tfjs
// IOHandlers over model.json files built with tfjs's own artifact helpers.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

const require = createRequire(import.meta.url);
let ready: Promise<void> | undefined;

export const testdata = path.resolve(process.cwd(), '../shared/testdata/models/tfjs');

/** tfjs with the wasm backend; tensors the adapter returns are made on it too. */
export function tfjsWasm(): Promise<typeof tf> {
  ready ??= (async () => {
    const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.wasm'));
    setWasmPaths(`${dir}${path.sep}`);
    await tf.setBackend('wasm');
    await tf.ready();
  })();
  return ready.then(() => tf);
}

/** An IOHandler that loads a model.json and its shards from disk with tfjs's getModelArtifactsForJSON. */
export function fileHandler(file: string): tf.io.IOHandler {
  return {
    load: async () => {
      const json = JSON.parse(readFileSync(file, 'utf8')) as tf.io.ModelJSON;
      return tf.io.getModelArtifactsForJSON(json, async (manifest) => {
        const specs = manifest.flatMap((group) => group.weights);
        const buffers = manifest.flatMap((group) =>
          group.paths.map((p) => new Uint8Array(readFileSync(path.join(path.dirname(file), p))).buffer),
        );
        return [specs, buffers];
      });
    },
  };
}

/** Values and shape of a tensor, to compare across backends. */
export async function valuesOf(tensor: tf.Tensor): Promise<{ shape: number[]; dtype: string; data: number[] }> {
  return { shape: tensor.shape, dtype: tensor.dtype, data: Array.from((await tensor.data()) as Float32Array) };
}

/** max |a - b| over two equally long lists. */
export function maxAbsDiff(a: readonly number[], b: readonly number[]): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
  return worst;
}
