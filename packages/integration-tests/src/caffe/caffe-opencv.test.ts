// Caffe nets through tsge (parse → compile → .om → run) against OpenCV's dnn module on the same
// prototxt, caffemodel and input.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectClose, runTsge } from './caffe-run.fixture.js';
import { randomCaffemodel } from './caffe-weights.fixture.js';
import { runOpenCvCaffe } from './opencv.fixture.js';

const caffeDir = path.resolve(process.cwd(), '../shared/testdata/models/caffe');

function randomInput(count: number, seed: number): Float32Array {
  let state = seed >>> 0;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out[i] = state / 4294967296 - 0.5;
  }
  return out;
}

/** Each net runs with batch 1 on the input shape the prototxt declares for its other dims. */
function inputDims(prototxt: string): { name: string; dims: number[] } {
  const layer = /layer\s*\{[^}]*?type:\s*"Input"[\s\S]*?top:\s*"([^"]+)"[\s\S]*?shape:\s*\{([^}]*)\}/.exec(prototxt);
  const legacy = /input:\s*"([^"]+)"[\s\S]*?((?:input_dim:\s*\d+\s*){4})/.exec(prototxt);
  const match = layer ?? legacy;
  if (!match) throw new Error('no input found');
  const dims = [...(match[2] as string).matchAll(/\d+/g)].map((m) => Number(m[0]));
  return { name: match[1] as string, dims: [1, ...dims.slice(1)] };
}

describe('Caffe nets match OpenCV', () => {
  it('lenet with its trained caffemodel', async () => {
    const prototxt = readFileSync(path.join(caffeDir, 'lenet/lenet.prototxt'));
    const caffemodel = readFileSync(path.join(caffeDir, 'lenet/lenet_iter_10000.caffemodel'));
    const dims = [1, 1, 28, 28];
    const data = randomInput(28 * 28, 1).map((v) => v + 0.5);
    const expected = await runOpenCvCaffe(prototxt, caffemodel, dims, data);
    const got = await runTsge(prototxt, caffemodel, 'data', dims, data);
    expect(Object.keys(got)).toEqual(['prob']);
    expectClose(got.prob as never, expected, 'lenet prob');
  }, 60_000);

  const deploy = readdirSync(path.join(caffeDir, 'bvlc')).filter((f) => f.endsWith('.prototxt') && f !== 'lenet_train_test.prototxt');
  for (const file of deploy) {
    it(`${file} with seeded random weights`, async () => {
      const prototxt = readFileSync(path.join(caffeDir, 'bvlc', file));
      const caffemodel = await randomCaffemodel(prototxt, 7);
      const { name, dims } = inputDims(prototxt.toString());
      const data = randomInput(
        dims.reduce((a, b) => a * b, 1),
        3,
      );
      const expected = await runOpenCvCaffe(prototxt, caffemodel, dims, data);
      const got = await runTsge(prototxt, caffemodel, name, dims, data, file);
      const outputs = Object.values(got);
      expect(outputs).toHaveLength(1);
      // the nets end in a softmax: check it is not flat, so the comparison means something
      const out = outputs[0] as { dims: readonly number[]; data: Float32Array };
      expect(Math.max(...out.data)).toBeGreaterThan(2 / out.data.length);
      expectClose(out, expected, file);
    }, 240_000);
  }
});
