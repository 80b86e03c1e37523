// Public behaviour of onnxruntime's JavaScript API, case by case as onnxruntime's own js/node unit
// tests exercise it (argument checks, fetches, session and run options), through the drop-in
// module and through onnxruntime-common with the 'tsge' backend. Outputs are checked against
// onnxruntime-node on the same inputs.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as common from 'onnxruntime-common';
import * as reference from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ort from './index.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata');
const mnist = path.join(testdata, 'models/onnx/mnist.onnx');
const bytes = new Uint8Array(readFileSync(mnist));
const pixels = new Float32Array(784).map((_, i) => ((i * 13) % 255) / 255);
const input = new ort.Tensor('float32', pixels, [1, 1, 28, 28]);
const createAny = ort.InferenceSession.create as (...args: unknown[]) => Promise<ort.InferenceSession>;
const code = (c: string) => (e: unknown) => ort.TsgeError.isInstance(e) && e.code === c;
let expected: Float32Array;
let session: ort.InferenceSession;
const sessionAny = () => session as unknown as { run(...args: unknown[]): Promise<unknown> };

beforeAll(async () => {
  const ref = await reference.InferenceSession.create(mnist);
  expected = (await ref.run({ Input3: new reference.Tensor('float32', pixels, [1, 1, 28, 28]) })).Plus214_Output_0?.data as Float32Array;
  await ref.release();
  session = await ort.InferenceSession.create(mnist, { intraOpNumThreads: 1 });
});
afterAll(async () => {
  await session.release();
});

function expectLogits(tensor: ort.Tensor | undefined): void {
  expect(tensor?.dims).toEqual([1, 10]);
  const data = tensor?.data as Float32Array;
  for (let i = 0; i < 10; i++) expect(Math.abs((data[i] as number) - (expected[i] as number))).toBeLessThan(1e-4);
}

describe('InferenceSession.create()', () => {
  it('rejects bad arguments as onnxruntime-common does', async () => {
    await expect(createAny()).rejects.toMatchObject({ name: 'TypeError', message: expect.stringMatching(/argument\[0\]/) });
    await expect(createAny(bytes.buffer, -1)).rejects.toMatchObject({ name: 'RangeError', message: expect.stringMatching(/'byteOffset'/) });
    await expect(createAny(bytes.buffer, 0, 1e9)).rejects.toMatchObject({
      name: 'RangeError',
      message: expect.stringMatching(/'byteLength'/),
    });
    await expect(createAny(mnist, 'cpu')).rejects.toMatchObject({ name: 'TypeError', message: expect.stringMatching(/'options'/) });
    await expect(createAny(bytes, 'cpu')).rejects.toMatchObject({ name: 'TypeError', message: expect.stringMatching(/'options'/) });
  });

  it('fails to load a missing file or an empty buffer with "failed" and a tsge code', async () => {
    await expect(ort.InferenceSession.create('/this/is/an/invalid/path.onnx')).rejects.toSatisfy(
      (e: unknown) => code('TSGE-E3001')(e) && /Load model from \/this\/is\/an\/invalid\/path\.onnx failed/.test((e as Error).message),
    );
    await expect(ort.InferenceSession.create(new Uint8Array(0))).rejects.toSatisfy(
      (e: unknown) => ort.TsgeError.isInstance(e) && /Load model from buffer failed/.test(e.message),
    );
  });

  it('loads from a path, a Uint8Array, an ArrayBuffer and a slice of a larger ArrayBuffer', async () => {
    const larger = new Uint8Array(bytes.byteLength + 64);
    larger.set(bytes, 32);
    const sources: unknown[][] = [
      [mnist],
      [bytes],
      [bytes.slice().buffer],
      [larger.buffer, 32, bytes.byteLength],
      [larger.buffer.slice(0, 32 + bytes.byteLength), 32],
    ];
    for (const args of sources) {
      const s = await createAny(...args, ...(args.length === 1 ? [{ intraOpNumThreads: 1 }] : []));
      expect(s.inputNames).toEqual(['Input3']);
      expect(s.outputNames).toEqual(['Plus214_Output_0']);
      expectLogits((await s.run({ Input3: input })).Plus214_Output_0);
      await s.release();
    }
  });
});

describe('InferenceSession.run()', () => {
  it('rejects bad feeds', async () => {
    await expect(sessionAny().run(null)).rejects.toMatchObject({ name: 'TypeError', message: expect.stringMatching(/'feeds'/) });
    await expect(sessionAny().run(input)).rejects.toMatchObject({ name: 'TypeError', message: expect.stringMatching(/'feeds'/) });
    await expect(sessionAny().run([input])).rejects.toMatchObject({ name: 'TypeError', message: expect.stringMatching(/'feeds'/) });
    await expect(sessionAny().run({})).rejects.toThrow(/input 'Input3' is missing/);
    await expect(sessionAny().run({ Input4: input })).rejects.toThrow(/input 'Input3' is missing/);
    const gpu = { ...input, location: 'gpu-buffer' };
    await expect(sessionAny().run({ Input3: Object.setPrototypeOf(gpu, Object.getPrototypeOf(input)) })).rejects.toSatisfy(
      code('TSGE-E8204'),
    );
  });

  it('selects outputs by names, by an object, and writes preallocated outputs in place', async () => {
    expectLogits((await session.run({ Input3: input })).Plus214_Output_0);
    expectLogits((await session.run({ Input3: input }, ['Plus214_Output_0'])).Plus214_Output_0);
    expectLogits((await session.run({ Input3: input }, { Plus214_Output_0: null })).Plus214_Output_0);
    const buffer = new Float32Array(10);
    const result = await session.run({ Input3: input }, { Plus214_Output_0: new ort.Tensor(buffer, [1, 10]) });
    expect((result.Plus214_Output_0 as ort.Tensor).data).toBe(buffer);
    expectLogits(result.Plus214_Output_0);
  });

  it('rejects bad fetches and options', async () => {
    const feeds = { Input3: input };
    await expect(sessionAny().run(feeds, null)).rejects.toMatchObject({
      name: 'TypeError',
      message: expect.stringMatching(/argument\[1\]/),
    });
    await expect(sessionAny().run(feeds, 1)).rejects.toMatchObject({ name: 'TypeError', message: expect.stringMatching(/argument\[1\]/) });
    await expect(sessionAny().run(feeds, new ort.Tensor(new Float32Array(10), [1, 10]))).rejects.toThrow(/'fetches'/);
    await expect(sessionAny().run(feeds, [])).rejects.toThrow(/'fetches'/);
    await expect(sessionAny().run(feeds, [1, 2, 3])).rejects.toThrow(/'fetches'/);
    await expect(sessionAny().run(feeds, ['wrong_name'])).rejects.toMatchObject({
      name: 'RangeError',
      message: expect.stringMatching(/'fetches'/),
    });
    await expect(sessionAny().run(feeds, ['Plus214_Output_0'], 1)).rejects.toMatchObject({
      name: 'TypeError',
      message: expect.stringMatching(/'options'/),
    });
  });

  it('checks run options', async () => {
    const feeds = { Input3: input };
    await expect(session.run(feeds, { logSeverityLevel: 'error' as never })).rejects.toSatisfy(code('TSGE-E8203'));
    await expect(session.run(feeds, { logSeverityLevel: 8 as never })).rejects.toThrow(/logSeverityLevel/);
    expectLogits((await session.run(feeds, { logSeverityLevel: 4, tag: 'tagged' })).Plus214_Output_0);
    await expect(session.run(feeds, { terminate: true })).rejects.toSatisfy(code('TSGE-E8203'));
    await expect(session.run(feeds, { extra: { memory: { enable_memory_arena_shrinkage: '1' } } })).rejects.toSatisfy(code('TSGE-E8203'));
  });
});

describe('SessionOptions', () => {
  const open = (options: unknown) => createAny(mnist, options);
  const rejectsOption = async (options: unknown, option: string, errorCode = 'TSGE-E8202') => {
    await expect(open(options)).rejects.toSatisfy((e: unknown) => code(errorCode)(e) && (e as Error).message.includes(option));
  };

  it('takes the CPU provider as tsge and refuses others', async () => {
    for (const providers of [['cpu'], [{ name: 'cpu' }], ['tsge'], [{ name: 'cpu', useArena: false }]]) {
      const s = await open({ executionProviders: providers, intraOpNumThreads: 1 });
      expectLogits((await s.run({ Input3: input })).Plus214_Output_0);
      await s.release();
    }
    await rejectsOption({ executionProviders: ['cuda'] }, 'cuda', 'TSGE-E8201');
    await rejectsOption({ executionProviders: 'cpu' }, 'executionProviders');
  });

  it('validates numbers and enumerations by name', async () => {
    for (const option of ['intraOpNumThreads', 'interOpNumThreads']) {
      for (const value of ['bad-value', 1.5, -1]) await rejectsOption({ [option]: value }, option);
    }
    for (const value of [0, 'bad-value']) await rejectsOption({ graphOptimizationLevel: value }, 'graphOptimizationLevel');
    for (const value of [0, 'bad-value']) await rejectsOption({ executionMode: value }, 'executionMode');
    await rejectsOption({ enableCpuMemArena: 0 }, 'enableCpuMemArena');
    await rejectsOption({ enableMemPattern: 0 }, 'enableMemPattern');
    await rejectsOption({ logSeverityLevel: 7 }, 'logSeverityLevel');
    await rejectsOption({ freeDimensionOverrides: { batch: 0 } }, 'freeDimensionOverrides.batch');
  });

  it('maps every level, mode and flag tsge honours, with the same outputs', async () => {
    const variants = [
      { graphOptimizationLevel: 'disabled' },
      { graphOptimizationLevel: 'basic' },
      { graphOptimizationLevel: 'extended' },
      { graphOptimizationLevel: 'all', executionMode: 'parallel', interOpNumThreads: 2 },
      { executionMode: 'sequential', enableMemPattern: false, enableCpuMemArena: false, logSeverityLevel: 3, logId: 'x' },
      { intraOpNumThreads: 2 },
    ];
    for (const options of variants) {
      const s = await open(options);
      expectLogits((await s.run({ Input3: input })).Plus214_Output_0);
      await s.release();
    }
  });

  it('refuses what tsge cannot honour', async () => {
    await rejectsOption({ optimizedModelFilePath: '/tmp/x.onnx' }, 'optimizedModelFilePath', 'TSGE-E8201');
    await rejectsOption({ enableGraphCapture: true }, 'enableGraphCapture', 'TSGE-E8201');
    await rejectsOption({ preferredOutputLocation: 'gpu-buffer' }, 'preferredOutputLocation', 'TSGE-E8201');
    await rejectsOption({ extra: { session: { use_ort_model_bytes_directly: '1' } } }, 'extra', 'TSGE-E8201');
  });

  it('applies freeDimensionOverrides to symbolic inputs', async () => {
    // test_add_bcast has static shapes; a symbolic model: the ONNX test for Shape with dim_param? use Identity over N
    const model = path.join(testdata, 'onnx-backend/light/light_squeezenet.onnx');
    const probe = await reference.InferenceSession.create(model);
    const shape = (probe.inputMetadata[0] as { shape: readonly (number | string)[] }).shape;
    await probe.release();
    const symbolic = shape.filter((d): d is string => typeof d === 'string');
    if (symbolic.length === 0) return; // the model is static: nothing to override
    const s = await open({ freeDimensionOverrides: Object.fromEntries(symbolic.map((d) => [d, 1])) });
    expect((s.inputMetadata[0] as { shape: readonly unknown[] }).shape.every((d) => typeof d === 'number')).toBe(true);
    await s.release();
  });
});

describe('profiling', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'tsge-ort-profile-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('writes <profileFilePrefix>_<date>.json with one event per kernel on endProfiling', async () => {
    const prefix = path.join(folder, 'run');
    const s = await ort.InferenceSession.create(mnist, { enableProfiling: true, profileFilePrefix: prefix, intraOpNumThreads: 1 });
    await s.run({ Input3: input });
    s.endProfiling();
    const files = readdirSync(folder).filter((f) => /^run_\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d_\d{3}\.json$/.test(f));
    expect(files).toHaveLength(1);
    const events = JSON.parse(readFileSync(path.join(folder, files[0] as string), 'utf8')) as { ph: string; args: { opType: string } }[];
    expect(events.length).toBeGreaterThan(3);
    expect(events.every((e) => e.ph === 'X')).toBe(true);
    expect(events.map((e) => e.args.opType)).toEqual(expect.arrayContaining([expect.stringMatching(/Conv/)]));
    s.endProfiling(); // already ended: nothing more, as onnxruntime
    expect(readdirSync(folder)).toHaveLength(1);
    s.startProfiling();
    await s.run({ Input3: input });
    await new Promise((resolve) => setTimeout(resolve, 5)); // a new millisecond, a new file name
    s.endProfiling();
    expect(readdirSync(folder)).toHaveLength(2);
    await s.release();
  });

  it('does nothing without enableProfiling, as onnxruntime-node', async () => {
    session.startProfiling();
    session.endProfiling();
    expect(existsSync(path.join(process.cwd(), 'onnxruntime_profile_'))).toBe(false);
  });
});

describe('release()', () => {
  it('fails later runs and a second release with "already disposed"', async () => {
    const s = await ort.InferenceSession.create(bytes);
    await s.release();
    await expect(s.run({ Input3: input })).rejects.toThrow(/already disposed/);
    await expect(s.release()).rejects.toSatisfy(code('TSGE-E8207'));
  });
});

describe("onnxruntime-common with the 'tsge' backend", () => {
  it("runs code written against onnxruntime-common with executionProviders: ['tsge']", async () => {
    await import('./register.js');
    const s = await common.InferenceSession.create(mnist, { executionProviders: ['tsge'], intraOpNumThreads: 1 });
    expect(s.inputMetadata).toEqual([{ name: 'Input3', isTensor: true, type: 'float32', shape: [1, 1, 28, 28] }]);
    expectLogits((await s.run({ Input3: new common.Tensor('float32', pixels, [1, 1, 28, 28]) })).Plus214_Output_0 as ort.Tensor);
    await s.release();
    // onnxruntime-node's own sessions keep their backend: tsge registers below its priority
    const native = await reference.InferenceSession.create(mnist);
    await expect(native.run({ Input3: new reference.Tensor('float32', pixels, [1, 1, 28, 28]) })).resolves.toBeDefined();
    await native.release();
  });
});
