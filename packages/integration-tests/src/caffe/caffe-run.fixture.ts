// tsge's side of the Caffe comparisons: parse with the discovered parser, compile, run, compare.
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import { createTensor, isHostTensor } from '@tsge/metadef';
import { expect } from 'vitest';

/** The Done-when tolerance against OpenCV. */
const RTOL = 1e-4;
const ATOL = 1e-5;

/** Parses with the discovered Caffe parser, compiles, runs once; returns every output. */
export async function runTsge(
  prototxt: Uint8Array,
  weights: Uint8Array,
  input: string,
  dims: number[],
  data: Float32Array,
  fileName = 'net.prototxt',
  outNodes?: string[],
) {
  const graph = await parseModel(prototxt, {
    fileName,
    parserOptions: { weights },
    inputShapes: { [input]: dims },
    ...(outNodes ? { outNodes } : {}),
  });
  const model = await loadModel(await buildModel(graph), { threads: 1 });
  try {
    const outputs = await model.run({ [input]: createTensor('float32', dims, data) });
    const result: Record<string, { dims: readonly number[]; data: Float32Array }> = {};
    for (const [name, value] of Object.entries(outputs)) {
      if (!isHostTensor(value)) throw new Error(`${name} is not a tensor`);
      result[name] = { dims: value.dims, data: value.data as Float32Array };
    }
    return result;
  } finally {
    await model.release();
  }
}

export function expectClose(
  actual: { dims: readonly number[]; data: Float32Array },
  expected: { dims: readonly number[]; data: Float32Array },
  what: string,
) {
  expect(actual.data.length, `${what}: element count (tsge [${actual.dims}], OpenCV [${expected.dims}])`).toBe(expected.data.length);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < expected.data.length; i++) {
    const excess =
      Math.abs((actual.data[i] as number) - (expected.data[i] as number)) - (ATOL + RTOL * Math.abs(expected.data[i] as number));
    if (!(excess <= worst)) {
      worst = Number.isNaN(excess) ? Number.POSITIVE_INFINITY : excess;
      at = i;
    }
  }
  expect(at, `${what}: element ${at} is ${actual.data[at]}, OpenCV gives ${expected.data[at]}`).toBe(-1);
}
