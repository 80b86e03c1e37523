import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GraphBuilder, serializeAir } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferenceSession, TsgeError, buildModel, createTensor, defaultRegistries, parseModel } from './index.js';

const mnist = path.resolve(process.cwd(), '../shared/testdata/models/onnx/mnist.onnx');
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'tsge-ge-session-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function digitLike(): Float32Array {
  const data = new Float32Array(28 * 28);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 37) % 255) / 255;
  return data;
}

const errorCode = (code: string) => (e: unknown) => TsgeError.isInstance(e) && e.code === code;

/** y = relu(x · w) with x of shape [N, 3], N symbolic. */
function symbolicAir(): Uint8Array {
  const b = new GraphBuilder('sym', { ops: defaultRegistries().ops });
  const x = b.input('x', 'float32', ['N', 3]);
  const w = b.constant('w', Float32Array.from([1, 2, 3, 4, 5, 6]), [3, 2]);
  b.output(b.op('Relu', [b.op('MatMul', [x, w])]), 'y');
  return serializeAir(b.build());
}

describe('InferenceSession', () => {
  it('compiles an ONNX file in process and agrees with onnxruntime-node', async () => {
    const session = await InferenceSession.create(mnist, { load: { threads: 1 } });
    try {
      expect(session.origin).toBe('compiled');
      expect(session.inputNames).toEqual(['Input3']);
      expect(session.outputNames).toEqual(['Plus214_Output_0']);
      expect(session.inputMetadata[0]).toMatchObject({ name: 'Input3', dtype: 'float32', shape: [1, 1, 28, 28] });
      const input = digitLike();
      const out = await session.run({ Input3: createTensor('float32', [1, 1, 28, 28], input) });
      const reference = await ort.InferenceSession.create(mnist);
      const expected = (await reference.run({ Input3: new ort.Tensor('float32', input, [1, 1, 28, 28]) })).Plus214_Output_0;
      await reference.release();
      const got = out.Plus214_Output_0 as unknown as { dims: number[]; data: Float32Array };
      expect(got.dims).toEqual([...(expected?.dims ?? [])]);
      const want = expected?.data as Float32Array;
      for (let i = 0; i < want.length; i++) expect(Math.abs((got.data[i] as number) - (want[i] as number))).toBeLessThan(1e-4);
    } finally {
      await session.release();
    }
  });

  it('runs synchronously on the calling thread (runSync) with the outputs of onnxruntime-node, fetches checked', async () => {
    // two threads: the async runs use workers, runSync still runs here
    const session = await InferenceSession.create(mnist, { load: { threads: 2, smallModelBytes: 0 } });
    try {
      const input = digitLike();
      const feeds = { Input3: createTensor('float32', [1, 1, 28, 28], input) };
      const reference = await ort.InferenceSession.create(mnist);
      const expected = (await reference.run({ Input3: new ort.Tensor('float32', input, [1, 1, 28, 28]) })).Plus214_Output_0;
      await reference.release();
      const out = session.runSync(feeds, ['Plus214_Output_0']);
      const got = out.Plus214_Output_0 as unknown as { dims: number[]; data: Float32Array };
      expect(got.dims).toEqual([...(expected?.dims ?? [])]);
      const want = expected?.data as Float32Array;
      for (let i = 0; i < want.length; i++) expect(Math.abs((got.data[i] as number) - (want[i] as number))).toBeLessThan(1e-4);
      expect(() => session.runSync(feeds, ['nope'])).toThrow(expect.objectContaining({ code: 'TSGE-E6150' }));
      await session.release();
      expect(() => session.runSync(feeds)).toThrow(expect.objectContaining({ code: 'TSGE-E6153' }));
    } finally {
      await session.release();
    }
  });

  it('takes bytes and ArrayBuffers, selects fetches and rejects unknown ones', async () => {
    const { readFile } = await import('node:fs/promises');
    const bytes = new Uint8Array(await readFile(mnist));
    const session = await InferenceSession.create(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    try {
      const feeds = { Input3: createTensor('float32', [1, 1, 28, 28], digitLike()) };
      expect(Object.keys(await session.run(feeds, ['Plus214_Output_0']))).toEqual(['Plus214_Output_0']);
      await expect(session.run(feeds, ['nope'])).rejects.toSatisfy(errorCode('TSGE-E6150'));
    } finally {
      await session.release();
    }
    await expect(session.run({})).rejects.toSatisfy(errorCode('TSGE-E6153'));
    await session.release(); // idempotent
  });

  it('opens an .om as it is and refuses compile options for it', async () => {
    const omFile = path.join(scratch, 'mnist.om');
    await writeFile(omFile, await buildModel(await parseModel(mnist)));
    const session = await InferenceSession.create(omFile, { load: { threads: 1 } });
    expect(session.origin).toBe('om');
    expect(session.inputNames).toEqual(['Input3']);
    await session.release();
    await expect(InferenceSession.create(omFile, { compile: { optLevel: 1 } })).rejects.toSatisfy(errorCode('TSGE-E6151'));
  });

  it('fixes symbolic dimensions with freeDimensions', async () => {
    const session = await InferenceSession.create(symbolicAir(), { freeDimensions: { N: 2, unused: 7 } });
    try {
      expect(session.inputMetadata[0]?.shape).toEqual([2, 3]);
      const out = await session.run({ x: createTensor('float32', [2, 3], Float32Array.from([1, 0, -1, 0, 1, 0])) });
      expect([...(out.y as { data: Float32Array }).data]).toEqual([0, 0, 3, 4]);
    } finally {
      await session.release();
    }
    await expect(InferenceSession.create(symbolicAir(), { freeDimensions: { N: 0 } })).rejects.toSatisfy(errorCode('TSGE-E6151'));
  });

  it('caches compiled models by model hash and options, within a size limit', async () => {
    const directory = path.join(scratch, 'cache');
    const open = async (optLevel: 0 | 1 | 2 | 3, maxBytes?: number) => {
      const session = await InferenceSession.create(mnist, {
        compile: { optLevel },
        cache: { directory, ...(maxBytes !== undefined ? { maxBytes } : {}) },
        load: { threads: 1 },
      });
      const origin = session.origin;
      const out = await session.run({ Input3: createTensor('float32', [1, 1, 28, 28], digitLike()) });
      await session.release();
      return { origin, out: [...(out.Plus214_Output_0 as { data: Float32Array }).data] };
    };
    const first = await open(3);
    expect(first.origin).toBe('compiled');
    const second = await open(3);
    expect(second.origin).toBe('cache');
    expect(second.out).toEqual(first.out);
    expect((await open(1)).origin).toBe('compiled'); // other options, other entry
    const entries = (await readdir(directory)).filter((f) => f.endsWith('.om'));
    expect(entries).toHaveLength(2);
    const { stat } = await import('node:fs/promises');
    let largest = 0;
    for (const entry of entries) largest = Math.max(largest, (await stat(path.join(directory, entry))).size);

    // a damaged entry is dropped and compiled afresh
    for (const entry of entries) await writeFile(path.join(directory, entry), Buffer.from('TSGE.OM\0broken'));
    expect((await open(3)).origin).toBe('compiled');
    expect((await open(3)).origin).toBe('cache');

    // a limit that holds one entry keeps only the newest
    const limited = path.join(scratch, 'limited');
    const openLimited = (optLevel: 1 | 3) =>
      InferenceSession.create(mnist, {
        compile: { optLevel },
        cache: { directory: limited, maxBytes: largest + 100 },
        load: { threads: 1 },
      }).then(async (session) => {
        await session.release();
        return session.origin;
      });
    expect(await openLimited(3)).toBe('compiled');
    expect(await openLimited(1)).toBe('compiled');
    expect((await readdir(limited)).filter((f) => f.endsWith('.om'))).toHaveLength(1);
    expect(await openLimited(1)).toBe('cache');
    expect(await openLimited(3)).toBe('compiled');

    await expect(
      InferenceSession.create(mnist, { cache: { directory }, compile: { customPasses: [{ specVersion: 'v1' } as never] } }),
    ).rejects.toSatisfy(errorCode('TSGE-E6151'));
    await expect(InferenceSession.create(mnist, { cache: { directory, maxBytes: -1 } })).rejects.toSatisfy(errorCode('TSGE-E6151'));
  }, 60_000);

  it('reads the side files of a model given as bytes from sideFiles, and keys the cache by them', async () => {
    const folder = path.resolve(process.cwd(), '../shared/testdata/models/tfjs/dense_model');
    const json = await readFile(path.join(folder, 'model.json'));
    const shard = new Uint8Array(await readFile(path.join(folder, 'group1-shard1of1.bin')));
    const x = createTensor('float32', [2, 1], Float32Array.from([1, -2]));
    const byPath = await InferenceSession.create(path.join(folder, 'model.json'), { load: { threads: 1 } });
    const expected = await byPath.run({ dense_dense1_input: x });
    await byPath.release();
    const directory = path.join(scratch, 'side-files-cache');
    const open = (sideFiles: Record<string, Uint8Array>) =>
      InferenceSession.create(json, { format: 'tfjs', sideFiles, cache: { directory }, load: { threads: 1 } });
    const session = await open({ 'group1-shard1of1.bin': shard });
    expect(await session.run({ dense_dense1_input: x })).toEqual(expected);
    await session.release();
    expect((await open({ 'group1-shard1of1.bin': shard })).origin).toBe('cache');
    // other weights are another entry, not a stale hit
    const other = await open({ 'group1-shard1of1.bin': shard.map((b, i) => (i === 3 ? b ^ 0x40 : b)) });
    expect(other.origin).toBe('compiled');
    expect(await other.run({ dense_dense1_input: x })).not.toEqual(expected);
    await other.release();
    await expect(InferenceSession.create(json, { format: 'tfjs', sideFiles: {} })).rejects.toSatisfy(errorCode('TSGE-E3050'));
    await expect(InferenceSession.create(path.join(folder, 'model.json'), { sideFiles: {} })).rejects.toSatisfy(errorCode('TSGE-E6151'));
  }, 60_000);

  it('names the file it cannot read', async () => {
    await expect(InferenceSession.create('/nonexistent/model.onnx')).rejects.toSatisfy(errorCode('TSGE-E3001'));
    await expect(InferenceSession.create(42 as never)).rejects.toSatisfy(errorCode('TSGE-E6151'));
  });
  it('hands compile.outNodes of TensorFlow models to the parser (TF tensor names, as atc), so Identity outputs and inner nodes work', async () => {
    const file = path.resolve(process.cwd(), '../shared/testdata/models/tfjs/dense_model/model.json');
    const inner = 'StatefulPartitionedCall/sequential_1/dense_Dense1/BiasAdd';
    const all = await InferenceSession.create(file, { load: { threads: 1 } });
    const picked = await InferenceSession.create(file, { compile: { outNodes: [inner, 'Identity:0'] }, load: { threads: 1 } });
    try {
      expect(picked.outputNames).toEqual([inner, 'Identity:0']);
      const x = createTensor('float32', [2, 1], Float32Array.from([0.5, -1.5]));
      const want = (await all.run({ dense_dense1_input: x })).Identity as unknown as { data: Float32Array };
      const got = await picked.run({ dense_dense1_input: x });
      // Identity passes its input through: both outputs are the dense layer's
      for (const name of picked.outputNames)
        expect(Array.from((got[name] as unknown as { data: Float32Array }).data)).toEqual(Array.from(want.data));
    } finally {
      await Promise.all([all.release(), picked.release()]);
    }
    await expect(InferenceSession.create(file, { compile: { outNodes: ['no/such/node'] } })).rejects.toSatisfy(errorCode('TSGE-E3114'));
  });
});
