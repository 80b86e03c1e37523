// The TFLite rows of `pnpm bench`: tsge on the quantized graph, tsge on the same model imported as
// float (the TFLite parser's `dequantize` option) and LiteRT (wasm, XNNPACK) on identical inputs,
// alternating runs in one process.
import { readFile } from 'node:fs/promises';
import { buildModel, loadModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { createTensor, elementCount } from '@tsge/metadef';
import { tfliteParser } from '@tsge/parser-tflite';
import { createRandom } from '@tsge/run';
import { alternateRuns } from './alternate.js';
import { loadLiteRt } from './litert.js';

export interface TfliteBenchModel {
  readonly id: string;
  readonly path: string;
}

export interface TfliteResult {
  id: string;
  latency: Record<string, { median: number; p90: number }>;
  ratios: { tsgeOverLiteRt?: number; tsgeOverFloat?: number };
  /** Whether tsge's quantized top-5 equals LiteRT's (classifiers). */
  sameTop5?: boolean;
  error?: string;
}

interface Runner {
  readonly name: 'tsge' | 'tsge-float' | 'litert';
  run(): Promise<HostTensor>;
  release(): Promise<void> | void;
}

const top5 = (t: HostTensor): number[] =>
  Array.from(t.data as ArrayLike<number>, (v, i) => [v, i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, 5)
    .map(([, i]) => i);

async function tsgeRunner(bytes: Uint8Array, file: string, threads: number, dequantize: boolean, input: HostTensor): Promise<Runner> {
  const { graph, diagnostics } = await tfliteParser.parse({ bytes, path: file }, { extra: { dequantize } });
  if (!graph) throw new Error(diagnostics.map((d) => d.message).join('\n'));
  const model = await loadModel(await buildModel(graph), { threads });
  await model.whenReady();
  const meta = model.inputMetadata[0];
  if (!meta || model.inputMetadata.length !== 1) throw new Error('bench: TFLite models with one input only');
  const feed = dequantize ? dequantizedInput(input, meta.dtype) : input;
  return {
    name: dequantize ? 'tsge-float' : 'tsge',
    run: async () => Object.values(await model.run({ [meta.name]: feed }))[0] as HostTensor,
    release: () => model.release(),
  };
}

/** The float model is timed on the same pixels scaled to [-1, 1) (timing only; its outputs are not compared). */
function dequantizedInput(input: HostTensor, dtype: string): HostTensor {
  if (dtype !== 'float32') throw new Error(`bench: the dequantized model takes ${dtype}`);
  return { type: 'float32', dims: [...input.dims], data: Float32Array.from(input.data as Uint8Array, (q) => (q - 128) / 128) };
}

export async function benchTflite(
  model: TfliteBenchModel,
  options: { threads: number; runs: number; warmup: number; gapMs: number },
  untilQuiet: () => Promise<void>,
): Promise<TfliteResult> {
  const log = (s: string): void => void process.stderr.write(`[${model.id}] ${s}\n`);
  const bytes = new Uint8Array(await readFile(model.path));
  const litert = await loadLiteRt(model.path);
  const random = createRandom(7);
  const { graph } = await tfliteParser.parse({ bytes, path: model.path }, {});
  const desc = graph?.inputNodes()[0]?.opDesc.outputDescs[0];
  if (desc?.dtype !== 'uint8' || !desc.shape.every((d) => typeof d === 'number' && d > 0))
    throw new Error('bench: TFLite rows take models with one static uint8 input');
  const dims = desc.shape as number[];
  const input = createTensor(
    'uint8',
    dims,
    Uint8Array.from({ length: elementCount(dims) }, () => Math.floor(random() * 256)),
  );
  log('compiling and loading ...');
  const runners: Runner[] = [
    await tsgeRunner(bytes, model.path, options.threads, false, input),
    await tsgeRunner(bytes, model.path, options.threads, true, input),
    { name: 'litert', run: async () => (await litert.run([input]))[0] as HostTensor, release: () => litert.release() },
  ];
  await untilQuiet();
  const { latency, last } = await alternateRuns(model.id, runners, options);
  // compared before the models are released (tsge's outputs may be views of its memory)
  const mine = last.get('tsge');
  const theirs = last.get('litert');
  const sameTop5 = mine && theirs ? top5(mine).join() === top5(theirs).join() : undefined;
  if (process.env.BENCH_DEBUG && mine && theirs)
    log(`top-5 tsge ${top5(mine)} (${mine.type} ${mine.dims}), LiteRT ${top5(theirs)} (${theirs.type} ${theirs.dims})`);
  for (const r of runners) await r.release();
  const ratio = (a?: { median: number }, b?: { median: number }) => (a && b ? a.median / b.median : undefined);
  const tsgeOverLiteRt = ratio(latency.tsge, latency.litert);
  const tsgeOverFloat = ratio(latency.tsge, latency['tsge-float']);
  return {
    id: model.id,
    latency,
    ratios: { ...(tsgeOverLiteRt !== undefined ? { tsgeOverLiteRt } : {}), ...(tsgeOverFloat !== undefined ? { tsgeOverFloat } : {}) },
    ...(sameTop5 !== undefined ? { sameTop5 } : {}),
  };
}

export function tfliteTable(results: readonly TfliteResult[]): string {
  const f = (x: number | undefined, d = 1): string => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));
  const rows = [
    '| TFLite model | tsge ms | tsge float ms | LiteRT ms | tsge/LiteRT | tsge/tsge float | top-5 = LiteRT |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    if (r.error) rows.push(`| ${r.id} | failed: ${r.error.replace(/\|/g, '/').slice(0, 120)} |||||| `);
    else
      rows.push(
        `| ${r.id} | ${f(r.latency.tsge?.median)} | ${f(r.latency['tsge-float']?.median)} | ${f(r.latency.litert?.median)} | ${f(r.ratios.tsgeOverLiteRt, 2)} | ${f(r.ratios.tsgeOverFloat, 2)} | ${r.sameTop5 === undefined ? '—' : r.sameTop5 ? 'yes' : 'no'} |`,
      );
  }
  return rows.join('\n');
}
