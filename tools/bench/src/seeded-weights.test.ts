import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { outputSpread } from './output-stats.js';
import { withSeededWeights } from './seeded-weights.js';

const light = path.resolve(process.cwd(), '../shared/testdata/onnx-backend/light');
const squeezenet = new Uint8Array(readFileSync(path.join(light, 'light_squeezenet.onnx')));

/** onnxruntime-node's output on arange(n)/n, the bench's input for the light models. */
async function runOrt(model: Uint8Array): Promise<{ inputs: readonly string[]; spread: ReturnType<typeof outputSpread>; finite: boolean }> {
  const session = await ort.InferenceSession.create(model, { logSeverityLevel: 3 });
  const n = 3 * 224 * 224;
  const data = Float32Array.from({ length: n }, (_, i) => i / n);
  const out = await session.run({ [session.inputNames[0] as string]: new ort.Tensor('float32', data, [1, 3, 224, 224]) });
  const t = out[session.outputNames[0] as string] as ort.Tensor;
  await session.release();
  const values = t.data as Float32Array;
  return {
    inputs: session.inputNames,
    spread: outputSpread({ y: { type: 'float32', dims: [...t.dims], data: values } }),
    finite: values.every(Number.isFinite),
  };
}

describe('withSeededWeights', () => {
  it('is deterministic per seed and replaces every weight of a light model', () => {
    const a = withSeededWeights(squeezenet, 13);
    expect(a.replaced).toBe(39);
    expect(Buffer.from(withSeededWeights(squeezenet, 13).bytes).equals(Buffer.from(a.bytes))).toBe(true);
    expect(Buffer.from(withSeededWeights(squeezenet, 14).bytes).equals(Buffer.from(a.bytes))).toBe(false);
  });

  it('turns a uniform output into a varied, finite one that onnxruntime accepts as is', async () => {
    const before = await runOrt(squeezenet);
    expect(before.spread.distinct).toBeLessThan(10);
    const after = await runOrt(withSeededWeights(squeezenet, 13).bytes);
    // the dropped shape initializers must not turn into required inputs
    expect(after.inputs).toEqual(['data_0']);
    expect(after.finite).toBe(true);
    expect(after.spread.distinct).toBeGreaterThan(500);
    expect(after.spread.std).toBeGreaterThan(1e-3);
  });
});
