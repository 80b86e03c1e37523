// What several campaigns share: the real seed files, and running a loaded model on feeds that
// follow its input metadata (deterministic, so a reproducer fails the same way every time).
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Executor, loadModel } from '@tsge/executor';
import { compileModel } from '@tsge/ge';
import { type DataType, type Diagnostic, type Graph, type HostTensor, type ParseResult, TsgeError, createTensor } from '@tsge/metadef';
import type { FuzzSeed } from '../campaign.js';

/** Seeds above this size make each case slow without reaching more code. */
const MAX_SEED_BYTES = 2 * 1024 * 1024;

/** The ONNX files of the backend node suite (one per test, sorted) plus the real models. */
export async function onnxSeedFiles(testdata: string): Promise<string[]> {
  const node = path.join(testdata, 'onnx-backend/node');
  const tests = (await readdir(node)).sort();
  const files = tests.map((t) => path.join(node, t, 'model.onnx'));
  files.push(path.join(testdata, 'models/onnx/mnist.onnx'), path.join(testdata, 'models/onnx/pytorch_super_resolution.onnx'));
  return files;
}

export async function readSeeds(files: readonly string[], root: string): Promise<FuzzSeed[]> {
  const seeds: FuzzSeed[] = [];
  for (const file of files) {
    try {
      if ((await stat(file)).size > MAX_SEED_BYTES) continue;
      seeds.push({ name: path.relative(root, file), bytes: new Uint8Array(await readFile(file)) });
    } catch {
      // a test folder without a model file
    }
  }
  if (seeds.length === 0) throw new Error(`no seed files under ${root}`);
  return seeds;
}

/** The seeds: every file of `folder` (under the test data) whose name ends with `extension`, sorted. */
export async function seedsIn(testdata: string, folder: string, extension: string): Promise<FuzzSeed[]> {
  const dir = path.join(testdata, folder);
  const files = (await readdir(dir)).filter((f) => f.endsWith(extension)).sort();
  return readSeeds(
    files.map((f) => path.join(dir, f)),
    testdata,
  );
}

/** Every `step`-th element, starting with the first: a fixed, spread-out subset. */
export function every<T>(items: readonly T[], step: number): T[] {
  return items.filter((_, i) => i % step === 0);
}

const MAX_FEED_ELEMENTS = 1 << 22;

/** A tensor of the declared dtype and shape (unknown dims 2), filled with small varied values. */
export function feedFor(dtype: DataType, shape: readonly (number | string)[]): HostTensor {
  let dims = shape.map((d) => (typeof d === 'number' && d >= 0 ? d : 2));
  // a mutated model may declare a huge input: feeding it is the harness's cost, not the model's
  if (dims.reduce((a, b) => a * b, 1) > MAX_FEED_ELEMENTS) dims = dims.map(() => 1);
  const t = createTensor(dtype, dims);
  const data = t.data as unknown;
  if (Array.isArray(data)) for (let i = 0; i < data.length; i++) data[i] = `s${i % 5}`;
  else if (data instanceof BigInt64Array || data instanceof BigUint64Array) for (let i = 0; i < data.length; i++) data[i] = BigInt(i % 3);
  else if (ArrayBuffer.isView(data)) {
    const view = data as unknown as { length: number; [i: number]: number };
    const integer = !(data instanceof Float32Array || data instanceof Float64Array);
    for (let i = 0; i < view.length; i++) view[i] = integer ? i % 3 : ((i % 11) - 5) / 4;
  }
  return t;
}

/** Runs a loaded model once on feeds from its metadata, then releases it. */
export async function runOnce(executor: Executor): Promise<void> {
  try {
    const feeds: Record<string, HostTensor> = {};
    for (const meta of executor.inputMetadata) {
      if (meta.kind && meta.kind !== 'tensor') continue; // sequences and optionals: left out (a coded "missing input")
      feeds[meta.name] = feedFor(meta.dtype, meta.shape);
    }
    await executor.run(feeds);
  } finally {
    await executor.release();
  }
}

/** The rest of the user's path once a model parsed: compile, load on one thread, run once. */
export async function compileAndRun(graph: Graph): Promise<void> {
  const { om } = await compileModel(graph);
  await runOnce(await loadModel(om, { threads: 1 }));
}

/** A reader's catch-all that turned an engine error into a diagnostic ("reason: TypeError: ..."). */
const ENGINE_IN_MESSAGE = /\b(TypeError|RangeError|ReferenceError|SyntaxError|EvalError|URIError|InternalError)\b: /;

/**
 * Diagnostics with an error become the TsgeError a user would see; one whose message carries an
 * engine error caught by a reader's catch-all becomes that engine error (still a defect).
 */
export function throwIfErrors(diagnostics: readonly Diagnostic[]): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const hidden = errors.find((d) => ENGINE_IN_MESSAGE.test(d.message));
  if (hidden) {
    const name = ENGINE_IN_MESSAGE.exec(hidden.message)?.[1] as string;
    const error = new Error(`${hidden.code}: ${hidden.message}`);
    error.name = name;
    throw error;
  }
  if (errors.length > 0) throw TsgeError.fromDiagnostics(diagnostics);
}

/** The graph of a parse, or the TsgeError (or hidden engine error) its diagnostics amount to. */
export function graphOf(parsed: ParseResult): Graph {
  throwIfErrors(parsed.diagnostics);
  if (!parsed.graph) throw TsgeError.of('TSGE-E3003', { reason: 'no graph' });
  return parsed.graph;
}
