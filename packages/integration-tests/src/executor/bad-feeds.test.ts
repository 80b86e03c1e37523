// Feeds are untrusted input: a value that is not a tensor, data that are not numbers, an unknown run
// mode and a tensor larger than device memory are coded errors naming the input or option, decided
// before anything is copied (issue 11, items 4 and 5).
import path from 'node:path';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import { TsgeError } from '@tsge/metadef';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const mnist = path.resolve(process.cwd(), '../shared/testdata/models/onnx/mnist.onnx');
type Executor = Awaited<ReturnType<typeof loadModel>>;

async function failure(promise: Promise<unknown>): Promise<TsgeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TsgeError.isInstance(error)).toBe(true);
  return error as TsgeError;
}

describe('feeds of mnist', () => {
  let model: Executor;
  beforeAll(async () => {
    model = await loadModel((await compileModel(await parseModel(mnist))).om, { threads: 1 });
  });
  afterAll(() => model.release());
  const image = () => ({ type: 'float32', dims: [1, 1, 28, 28], data: new Float32Array(784) });

  it('a number as a feed is TSGE-E6050 naming the input', async () => {
    const error = await failure(model.run({ Input3: 3 } as never));
    expect(error.code).toBe('TSGE-E6050');
    expect(error.message).toContain('Input3');
  });

  it('a bare typed array, a string or an array as a feed is TSGE-E6050', async () => {
    for (const feed of [new Float32Array(784), 'image', [1, 2, 3]]) {
      expect((await failure(model.run({ Input3: feed } as never))).code).toBe('TSGE-E6050');
    }
  });

  it('string data in a float32 feed is TSGE-E6050, not NaN', async () => {
    const data = Array.from({ length: 784 }, (_, i) => (i === 5 ? 'x' : 0));
    const error = await failure(model.run({ Input3: { type: 'float32', dims: [1, 1, 28, 28], data } } as never));
    expect(error.code).toBe('TSGE-E6050');
    expect(error.message).toMatch(/Input3.*numbers/);
    // numbers in a plain array are still accepted
    const ok = await model.run({ Input3: { type: 'float32', dims: [1, 1, 28, 28], data: Array.from({ length: 784 }, () => 0.5) } });
    expect(Object.keys(ok)).toEqual(model.outputNames);
  });

  it('an unknown RunOptions.mode is TSGE-E7002 naming the option; a known one runs', async () => {
    const error = await failure(model.run({ Input3: image() }, { mode: 'turbo' } as never));
    expect(error.code).toBe('TSGE-E7002');
    expect(error.message).toContain('RunOptions.mode');
    await expect(model.run({ Input3: image() }, { mode: 'host' })).resolves.toBeDefined();
  });

  it('an unknown LoadModelOptions.mode is TSGE-E7002', async () => {
    const om = (await compileModel(await parseModel(mnist))).om;
    const error = await failure(loadModel(om, { mode: 'fast' } as never));
    expect(error.code).toBe('TSGE-E7002');
  });
});

describe('a huge input to a dynamic model', () => {
  // a dynamic model runs on the workers by default ('sink'); 'host' keeps it on the calling thread
  it.each(['sink', 'host'] as const)('1e9 elements are rejected from the dims (TSGE-E6051) before any copy (%s)', async (mode) => {
    const graph = await parseModel(mnist, { inputShapes: { Input3: ['N', 1, 28, 28] } });
    const model = await loadModel((await compileModel(graph)).om, mode === 'host' ? { mode } : {});
    try {
      expect(model.mode).toBe(mode);
      const batch = Math.ceil(1e9 / 784);
      // the engine reserves these 3.9 GB lazily: pages cost memory only once written, so the RSS
      // growth below measures whether tsge copied (or even read) the data
      const data = new Float32Array(batch * 784);
      const before = process.memoryUsage().rss;
      const error = await failure(model.run({ Input3: { type: 'float32', dims: [batch, 1, 28, 28], data } }));
      expect(error.code).toBe('TSGE-E6051');
      expect(error.message).toContain('Input3');
      expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
      // a batch that fits still runs (mnist's Reshape to [1,256] admits only batch 1)
      const small = await model.run({ Input3: { type: 'float32', dims: [1, 1, 28, 28], data: new Float32Array(784) } });
      expect((small[model.outputNames[0] as string] as unknown as { dims: number[] }).dims).toEqual([1, 10]);
    } finally {
      await model.release();
    }
  });
});

describe('sequence feeds', () => {
  it('items that are not tensors, or of another dtype, are coded errors naming the input', async () => {
    const file = path.resolve(process.cwd(), '../shared/testdata/onnx-backend/node/test_sequence_map_identity_1_sequence/model.onnx');
    const model = await loadModel((await compileModel(await parseModel(file))).om, { threads: 1 });
    try {
      const name = model.inputNames[0] as string;
      const item = { type: 'float32', dims: [2], data: new Float32Array([1, 2]) };
      const ok = await model.run({ [name]: { kind: 'sequence', elementType: 'float32', items: [item] } } as never);
      expect(Object.keys(ok)).toEqual(model.outputNames);
      for (const items of [[3], [{ ...item, data: ['a', 'b'] }], 'items']) {
        const error = await failure(model.run({ [name]: { kind: 'sequence', elementType: 'float32', items } } as never));
        expect(error.code).toBe('TSGE-E6050');
        expect(error.message).toContain(name);
      }
      const other = await failure(
        model.run({
          [name]: { kind: 'sequence', elementType: 'float32', items: [{ type: 'int32', dims: [1], data: new Int32Array(1) }] },
        } as never),
      );
      expect(other.code).toBe('TSGE-E6003');
    } finally {
      await model.release();
    }
  });
});
