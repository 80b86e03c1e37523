// TF2 SavedModels end to end (directory → parse → compile → load → run) through the front door
// and atc, against the expected values of TensorFlow.js's own SavedModel tests
// (tfjs-node/src/saved_model_test.ts); no runtime here executes SavedModels.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main as atc } from '@tsge/atc';
import { InferenceSession, loadModel } from '@tsge/ge';
import { type DataType, type HostTensor, type RuntimeValue, createTensor, isHostTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';

const root = path.resolve(process.cwd(), '../shared/testdata/models/tensorflow/saved_model');

interface Case {
  readonly model: string;
  readonly signature?: string;
  readonly feeds: Record<string, { type: DataType; dims: number[]; data: number[] }>;
  readonly expected: Record<string, { type: DataType; data: number[] }>;
}

const CASES: Case[] = [
  {
    model: 'times_three_float',
    feeds: { x: { type: 'float32', dims: [3], data: [1, 2, 3] } },
    expected: { output_0: { type: 'float32', data: [3, 6, 9] } },
  },
  {
    model: 'times_two_int',
    feeds: { x: { type: 'int32', dims: [3], data: [1, 2, 3] } },
    expected: { output_0: { type: 'int32', data: [2, 4, 6] } },
  },
  // tfjs feeds a scalar; the signature declares shape [1]
  {
    model: 'uint8_multiply',
    feeds: { x: { type: 'uint8', dims: [1], data: [3] } },
    expected: { output_0: { type: 'int32', data: [18] } },
  },
  {
    model: 'int64_multiply',
    feeds: { x: { type: 'int64', dims: [2], data: [3, 4] } },
    expected: { output_0: { type: 'int64', data: [18, 24] } },
  },
  {
    model: 'module_with_multiple_signatures',
    feeds: { x: { type: 'float32', dims: [3], data: [1, 2, 3] } },
    expected: { output_0: { type: 'float32', data: [3, 6, 9] } },
  },
  {
    model: 'module_with_multiple_signatures',
    signature: 'timestwo',
    feeds: { x: { type: 'float32', dims: [3], data: [1, 2, 3] } },
    expected: { output_0: { type: 'float32', data: [2, 4, 6] } },
  },
  {
    model: 'model_single_input_multi_output',
    feeds: { x: { type: 'int32', dims: [3], data: [1, 2, 3] } },
    expected: { output_0: { type: 'int32', data: [2, 4, 6] }, output_1: { type: 'int32', data: [1, 2, 3] } },
  },
  {
    model: 'model_multi_output',
    feeds: { x: { type: 'int32', dims: [3], data: [1, 2, 3] }, y: { type: 'int32', dims: [3], data: [1, 2, 3] } },
    expected: { output_0: { type: 'int32', data: [2, 4, 6] }, output_1: { type: 'int32', data: [1, 2, 3] } },
  },
];

function feedsOf(c: Case): Record<string, HostTensor> {
  return Object.fromEntries(
    Object.entries(c.feeds).map(([name, f]) => [
      name,
      createTensor(f.type, f.dims, f.type === 'int64' ? BigInt64Array.from(f.data.map(BigInt)) : (f.data as never)),
    ]),
  );
}

function expectOutputs(got: Record<string, RuntimeValue>, c: Case): void {
  expect(Object.keys(got).sort()).toEqual(Object.keys(c.expected).sort());
  for (const [name, want] of Object.entries(c.expected)) {
    const value = got[name];
    expect(isHostTensor(value), name).toBe(true);
    const t = value as HostTensor;
    expect(t.type, `${name} dtype`).toBe(want.type);
    expect(Array.from(t.data as ArrayLike<number | bigint>, Number), name).toEqual(want.data);
  }
}

describe('TF2 SavedModels match TensorFlow.js test expectations', () => {
  for (const c of CASES) {
    it(`${c.model}${c.signature ? ` (${c.signature})` : ''} through InferenceSession`, async () => {
      // TF does not hold feeds to a Placeholder's declared shape (these declare scalars and are fed
      // vectors, as tfjs's tests do); a compiled plan takes the fed shapes as input shapes
      const session = await InferenceSession.create(path.join(root, c.model), {
        ...(c.signature ? { signature: c.signature } : {}),
        inputShapes: Object.fromEntries(Object.entries(c.feeds).map(([name, f]) => [name, f.dims])),
        load: { threads: 1 },
      });
      try {
        expect(session.inputNames).toEqual(Object.keys(c.feeds));
        expectOutputs(await session.run(feedsOf(c)), c);
      } finally {
        await session.release();
      }
    }, 60_000);
  }

  it('atc compiles a SavedModel directory (--framework=3 --signature) to an .om that runs', async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-savedmodel-')), 'timestwo');
    let err = '';
    const code = await atc(
      [
        `--model=${path.join(root, 'module_with_multiple_signatures')}`,
        '--framework=3',
        '--signature=timestwo',
        '--input_shape=x:3',
        `--output=${out}`,
      ],
      { stdout: () => {}, stderr: (t) => (err += t) },
    );
    expect(err).toContain('(tensorflow)');
    expect(code).toBe(0);
    const model = await loadModel(new Uint8Array(readFileSync(`${out}.om`)), { threads: 1 });
    try {
      expectOutputs(await model.run(feedsOf(CASES[5] as Case)), CASES[5] as Case);
    } finally {
      await model.release();
    }
  }, 60_000);

  it('names a damaged checkpoint and a missing signature with coded errors', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tsge-savedmodel-'));
    cpSync(path.join(root, 'times_two_int'), dir, { recursive: true });
    await expect(InferenceSession.create(dir, { signature: 'missing' })).rejects.toMatchObject({ code: 'TSGE-E3109' });
    // one flipped byte in the variable's data: its crc32c no longer matches
    const data = path.join(dir, 'variables/variables.data-00000-of-00001');
    const bytes = new Uint8Array(readFileSync(data));
    const index = readFileSync(path.join(dir, 'variables/variables.index'));
    bytes[0] = (bytes[0] as number) ^ 0xff; // the variable is the first tensor of the shard
    writeFileSync(data, bytes);
    await expect(InferenceSession.create(dir)).rejects.toMatchObject({ code: 'TSGE-E3110' });
    // the index cut short: its footer is gone
    writeFileSync(path.join(dir, 'variables/variables.index'), new Uint8Array(index).subarray(0, 20));
    await expect(InferenceSession.create(dir)).rejects.toThrow(/variables\.index/);
    await expect(InferenceSession.create(path.join(dir, 'variables'))).rejects.toMatchObject({ code: 'TSGE-E3001' });
  }, 60_000);
});
