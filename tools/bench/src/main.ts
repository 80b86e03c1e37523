// `pnpm bench [--models a,b] [--threads N] [--runs N] [--warmup N] [--rounds N] [--opt-level N] [--gap-ms N] [--json file]`: tsge against onnxruntime-node
// and onnxruntime-web on identical inputs (ONNX models), and against LiteRT and its own float import
// (TFLite models), alternating runs in one process (or, with --rounds, each runtime in its own
// process: isolated.ts), reported as ratios, with the longest event-loop gap (a 1 ms timer-drift
// probe) during tsge's in-process runs.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileModel, defaultRegistries, initialize, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { latencyStats } from '@tsge/run';
import { maxErrors } from './accuracy.js';
import { integerFlag, parseFlags } from './bench-options.js';
import { probeEventLoop } from './event-loop-probe.js';
import { benchFeeds, warmUpShapes } from './feeds.js';
import { type RatioSpread, benchIsolated, ratioSpread } from './isolated.js';
import { type BenchModel, benchModels, materializeModel, tfliteBenchModels } from './models.js';
import { type OutputSpread, outputSpread } from './output-stats.js';
import { settle, timeIt, untilQuiet } from './quiet.js';
import { type TfjsResult, benchTfjs, tfjsBenchModels, tfjsTable } from './tfjs-bench.js';
import { extraWarmTurns, timedRuns } from './alternate.js';
import { type TfliteResult, benchTflite, tfliteTable } from './tflite-bench.js';
import { type LoadedRuntime, loadOrtNode, loadOrtWeb } from './runtimes.js';

interface Options {
  models?: string[];
  threads: number;
  runs: number;
  warmup: number;
  json?: string;
  /** Compiler optimization level (3: fused Conv/Gemm epilogues, as onnxruntime's default fuses them). */
  optLevel: 0 | 1 | 2 | 3;
  /**
   * Idle milliseconds before each timed run: onnxruntime-web's threads keep a core busy for about
   * 20 ms after a run (and half a second after loading), which would be charged to the runtime
   * measured next.
   */
  gapMs: number;
  /** With N > 0: each runtime in its own process, N interleaved rounds of --runs runs (isolated.ts). */
  rounds: number;
}

const COMMAND = 'bench';

/** The flags of `argv` (parseFlags: unknown flags and bad values throw TSGE-E4157 naming the flag). */
function parseOptions(argv: readonly string[]): Options {
  const values = parseFlags(
    COMMAND,
    {
      models: { type: 'string' },
      threads: { type: 'string', default: String(Math.min(2, os.availableParallelism())) },
      runs: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      json: { type: 'string' },
      'gap-ms': { type: 'string', default: '20' },
      rounds: { type: 'string', default: '0' },
      'opt-level': { type: 'string', default: '3' },
    },
    argv,
  );
  // `O2` or `2`
  const level = integerFlag(COMMAND, '--opt-level', values['opt-level'].replace(/^O/i, ''), 3, 0) as Options['optLevel'];
  return {
    ...(values.models !== undefined ? { models: values.models.split(',').filter((m) => m !== '') } : {}),
    threads: integerFlag(COMMAND, '--threads', values.threads, 64),
    runs: integerFlag(COMMAND, '--runs', values.runs, 10_000),
    warmup: integerFlag(COMMAND, '--warmup', values.warmup, 1000, 0),
    ...(values.json !== undefined ? { json: values.json } : {}),
    gapMs: integerFlag(COMMAND, '--gap-ms', values['gap-ms'], 60_000, 0),
    rounds: integerFlag(COMMAND, '--rounds', values.rounds, 1000, 0),
    optLevel: level,
  };
}

const median = (xs: number[]): number => latencyStats(xs).medianMs;

interface ModelResult {
  id: string;
  compileMs: number;
  load: Record<string, number>;
  /** With --rounds: each runtime's process-wide start before its load (tsge: `initialize({ workers })`). */
  init?: Record<string, number>;
  latency: Record<string, { median: number; p90: number }>;
  /** The first run right after each runtime's load (session create / loadModel + whenReady). */
  firstRun: Record<string, number>;
  ratios: { tsgeOverWeb?: number; tsgeOverNode?: number; loadTsgeOverNode?: number };
  /** The longest gap between event-loop ticks of the calling thread during tsge's timed runs (ms; a 1 ms timer). */
  tsgeEventLoopMaxGapMs?: number;
  /** With --rounds: median, min and max of the per-round ratios of round medians (the ratios above are these medians). */
  ratioSpread?: { tsgeOverWeb?: RatioSpread | undefined; tsgeOverNode?: RatioSpread | undefined };
  memory?: { arenaBytes: number; lowerBoundBytes: number; noReuseBytes: number };
  maxRelErrorVsNode?: number;
  maxAbsErrorVsNode?: number;
  /** Spread of onnxruntime-node's outputs: the errors above mean something only if it is not uniform. */
  outputSpread?: OutputSpread;
  peakRssMB: number;
  error?: string;
}

async function benchOne(model: BenchModel, options: Options, outDir: string): Promise<ModelResult> {
  const log = (s: string): void => void process.stderr.write(`[${model.id}] ${s}\n`);
  const bytes = new Uint8Array(await readFile(model.path));
  log('compiling with tsge ...');
  const [compiled, compileMs] = await timeIt(async () => {
    const inputShapes = model.dynamic ? {} : model.inputShapes;
    const graph = await parseModel(model.path, { inputShapes, ops: defaultRegistries().ops });
    return compileModel(graph, { inputShapes, optLevel: options.optLevel });
  });
  const omPath = path.join(outDir, `${model.id}.om`);
  await writeFile(omPath, compiled.om);
  const tsgeExecutor = await loadModel(compiled.om, { threads: 1 });
  const feeds = benchFeeds(model, tsgeExecutor.inputMetadata);
  await tsgeExecutor.release();
  if (options.rounds > 0) {
    log(`${options.rounds} interleaved rounds of ${options.runs} runs, each runtime in its own process ...`);
    const iso = await benchIsolated({ onnx: model.path, om: omPath }, feeds, options, log);
    const spread = {
      tsgeOverWeb: ratioSpread(iso.roundMedians.tsge, iso.roundMedians['ort-web']),
      tsgeOverNode: ratioSpread(iso.roundMedians.tsge, iso.roundMedians['ort-node']),
    };
    // the RSS that means something is tsge's own process, not this coordinating one
    return toResult(model, compiled, compileMs, {
      ...iso,
      ratioSpread: spread,
      peakRssMB: iso.peakRssMB.tsge,
      tsgeLoopGapMs: iso.loopGapMs.tsge,
    });
  }
  const load: Record<string, number> = {};
  const firstRun: Record<string, number> = {};
  const runtimes: LoadedRuntime[] = [];
  // what a user sees: the first run straight after the load, timed before anything else runs
  const keep = async (rt: LoadedRuntime): Promise<void> => {
    firstRun[rt.name] = (await timeIt(() => rt.run(feeds)))[1];
    runtimes.push(rt);
  };
  // load times: median of 3 loads each
  // loads are timed on a quiet process too (compiling leaves garbage and background work behind)
  await untilQuiet();
  const tsgeLoads: number[] = [];
  for (let i = 0; i < 3; i++) {
    const [ex, ms] = await timeIt(() => loadModel(compiled.om, { threads: options.threads, warmUp: warmUpShapes(feeds) }));
    tsgeLoads.push(ms);
    if (process.env.BENCH_DEBUG) process.stderr.write(`tsge load ${ms.toFixed(1)}\n`);
    if (i < 2) await ex.release();
    else {
      // load time counts loadModel; the first run is the one a caller makes right after it (before
      // the workers are up it runs on the calling thread); the timed runs start once they are up
      const rt: LoadedRuntime = { name: 'tsge', run: (f) => ex.run(f) as never, release: () => ex.release() };
      firstRun.tsge = (await timeIt(() => rt.run(feeds)))[1];
      await ex.whenReady();
      runtimes.push(rt);
    }
  }
  load.tsge = median(tsgeLoads);
  const nodeLoads: number[] = [];
  for (let i = 0; i < 3; i++) {
    const [rt, ms] = await timeIt(() => loadOrtNode(model.path, options.threads));
    nodeLoads.push(ms);
    if (process.env.BENCH_DEBUG) process.stderr.write(`ort-node load ${ms.toFixed(1)}\n`);
    if (i < 2) await rt.release();
    else await keep(rt);
  }
  load['ort-node'] = median(nodeLoads);
  try {
    const [rt, ms] = await timeIt(() => loadOrtWeb(bytes, options.threads));
    load['ort-web'] = ms;
    await keep(rt);
  } catch (e) {
    log(`onnxruntime-web failed to load: ${String(e)}`);
  }
  log(`warm-up (at least ${options.warmup} runs and about 1 s) and at least ${options.runs} alternating runs ...`);
  await untilQuiet();
  const samples = new Map<string, number[]>(runtimes.map((r) => [r.name, []]));
  // probed only while a tsge run is in flight: other runtimes' blocking is not charged to tsge
  let tsgeLoopGapMs: number | undefined;
  const lastOutputs = new Map<string, Record<string, HostTensor>>();
  let warmupMs = 0;
  const warmTurn = async (): Promise<void> => {
    warmupMs = 0;
    for (const r of runtimes) {
      const [out, ms] = await timeIt(() => r.run(feeds));
      lastOutputs.set(r.name, out);
      warmupMs += ms;
    }
  };
  const warmStart = performance.now();
  for (let i = 0; i < options.warmup; i++) await warmTurn();
  const extraWarm = extraWarmTurns(options.warmup, performance.now() - warmStart);
  for (let i = 0; i < extraWarm; i++) await warmTurn();
  const runs = timedRuns(options.runs, warmupMs, runtimes.length, options.gapMs);
  for (let i = 0; i < runs; i++) {
    for (const r of runtimes) {
      await settle(options.gapMs);
      const probe = r.name === 'tsge' ? probeEventLoop() : undefined;
      const [, ms] = await timeIt(() => r.run(feeds));
      if (probe) tsgeLoopGapMs = Math.max(tsgeLoopGapMs ?? 0, probe.stop());
      samples.get(r.name)?.push(ms);
      if (process.env.BENCH_DEBUG) process.stderr.write(`${r.name} ${ms.toFixed(1)}\n`);
    }
    process.stderr.write(`\r[${model.id}] run ${i + 1}/${runs}`);
  }
  process.stderr.write('\n');
  for (const r of runtimes) await r.release();
  const latency: ModelResult['latency'] = {};
  for (const [name, xs] of samples) {
    const s = latencyStats(xs);
    latency[name] = { median: s.medianMs, p90: s.p90Ms };
  }
  return toResult(model, compiled, compileMs, { load, firstRun, latency, outputs: lastOutputs, tsgeLoopGapMs });
}

interface Measured {
  readonly load: Record<string, number>;
  readonly init?: Record<string, number>;
  readonly firstRun: Record<string, number>;
  readonly latency: ModelResult['latency'];
  readonly outputs: ReadonlyMap<string, Record<string, HostTensor>>;
  readonly ratioSpread?: ModelResult['ratioSpread'];
  readonly peakRssMB?: number | undefined;
  /** The longest event-loop gap during tsge's timed runs (with --rounds: in tsge's own process). */
  readonly tsgeLoopGapMs?: number | undefined;
}

function toResult(model: BenchModel, compiled: { summary: unknown }, compileMs: number, m: Measured): ModelResult {
  const { load, latency, firstRun } = m;
  const tsgeOut = m.outputs.get('tsge');
  const nodeOut = m.outputs.get('ort-node');
  const errors = tsgeOut && nodeOut ? maxErrors(tsgeOut, nodeOut) : undefined;
  const summary = compiled.summary as { memory?: ModelResult['memory'] };
  return {
    id: model.id,
    compileMs,
    load,
    ...(m.init ? { init: m.init } : {}),
    latency,
    firstRun,
    ratios: {
      ...(latency.tsge && latency['ort-web']
        ? { tsgeOverWeb: m.ratioSpread?.tsgeOverWeb?.median ?? latency.tsge.median / latency['ort-web'].median }
        : {}),
      ...(latency.tsge && latency['ort-node']
        ? { tsgeOverNode: m.ratioSpread?.tsgeOverNode?.median ?? latency.tsge.median / latency['ort-node'].median }
        : {}),
      ...(load.tsge !== undefined && load['ort-node'] !== undefined ? { loadTsgeOverNode: load.tsge / load['ort-node'] } : {}),
    },
    ...(m.tsgeLoopGapMs !== undefined ? { tsgeEventLoopMaxGapMs: m.tsgeLoopGapMs } : {}),
    ...(m.ratioSpread ? { ratioSpread: m.ratioSpread } : {}),
    ...(summary.memory ? { memory: summary.memory } : {}),
    ...(errors ? { maxRelErrorVsNode: errors.rel, maxAbsErrorVsNode: errors.abs } : {}),
    ...(nodeOut ? { outputSpread: outputSpread(nodeOut) } : {}),
    peakRssMB: m.peakRssMB ?? process.resourceUsage().maxRSS / 1024,
  };
}

const geomean = (xs: number[]): number => (xs.length ? Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length) : Number.NaN);

function table(results: ModelResult[]): string {
  const f = (x: number | undefined, d = 1): string => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));
  const rows = [
    '| model | tsge ms | tsge 1st ms | tsge init ms | ort-web ms | web 1st ms | ort-node ms | node 1st ms | tsge/web | tsge/node | load tsge/node | compile s | arena/lower bound | max rel err | out std / distinct | peak RSS MB | tsge event-loop gap ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    if (r.error) {
      rows.push(`| ${r.id} | failed: ${r.error.replace(/\|/g, '/').slice(0, 120)} |||||||||||||||| `);
      continue;
    }
    const ratio = (x: number | undefined, s: RatioSpread | undefined): string =>
      s ? `${f(x, 2)} (${f(s.min, 2)}–${f(s.max, 2)})` : f(x, 2);
    const spread = r.outputSpread ? `${r.outputSpread.std.toExponential(1)} / ${r.outputSpread.distinct}` : '—';
    const mem = r.memory ? f(r.memory.arenaBytes / Math.max(1, r.memory.lowerBoundBytes), 2) : '—';
    rows.push(
      `| ${r.id} | ${f(r.latency.tsge?.median)} | ${f(r.firstRun.tsge)} | ${f(r.init?.tsge)} | ${f(r.latency['ort-web']?.median)} | ${f(r.firstRun['ort-web'])} | ${f(r.latency['ort-node']?.median)} | ${f(r.firstRun['ort-node'])} | ${ratio(r.ratios.tsgeOverWeb, r.ratioSpread?.tsgeOverWeb)} | ${ratio(r.ratios.tsgeOverNode, r.ratioSpread?.tsgeOverNode)} | ${f(r.ratios.loadTsgeOverNode, 2)} | ${f(r.compileMs / 1000, 2)} | ${mem} | ${r.maxRelErrorVsNode === undefined ? '—' : r.maxRelErrorVsNode.toExponential(1)} | ${spread} | ${f(r.peakRssMB, 0)} | ${f(r.tsgeEventLoopMaxGapMs, 1)} |`,
    );
  }
  const ok = results.filter((r) => !r.error);
  rows.push(
    `| **geomean** | | | | | | | | ${f(geomean(ok.map((r) => r.ratios.tsgeOverWeb).filter((x): x is number => x !== undefined)), 2)} | ${f(geomean(ok.map((r) => r.ratios.tsgeOverNode).filter((x): x is number => x !== undefined)), 2)} | ${f(geomean(ok.map((r) => r.ratios.loadTsgeOverNode).filter((x): x is number => x !== undefined)), 2)} | | | | | | max ${f(Math.max(0, ...ok.map((r) => r.tsgeEventLoopMaxGapMs ?? 0)), 1)} |`,
  );
  // the first run after load against the same runtime's median: what a caller of a fresh load sees
  const firstOverMedian = (name: string): string => {
    const xs = ok.flatMap((r) => {
      const first = r.firstRun[name];
      const median = r.latency[name]?.median;
      return first !== undefined && median ? [[r.id, first / median] as const] : [];
    });
    if (xs.length === 0) return `${name} —`;
    const worst = xs.reduce((a, b) => (b[1] > a[1] ? b : a));
    return `${name} ${f(geomean(xs.map((x) => x[1])), 2)} (max ${f(worst[1], 2)}, ${worst[0]})`;
  };
  rows.push('', `first run / median, geomean: ${['tsge', 'ort-web', 'ort-node'].map(firstOverMedian).join('; ')}`);
  return rows.join('\n');
}

function machineLine(options: Options): string {
  return `machine: ${os.cpus()[0]?.model ?? 'unknown'} (${os.availableParallelism()} hardware threads), ${options.threads} thread(s) per runtime, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const outDir = path.join(repoRoot, 'out', 'bench');
  await mkdir(outDir, { recursive: true });
  const all = benchModels(repoRoot);
  const selected = options.models ? all.filter((m) => options.models?.includes(m.id)) : all;
  // with --rounds each runtime's child initialises its own process (child-runner.ts); here tsge
  // shares this one: initialised once, as a GE application does before loading models
  if (options.rounds === 0 && options.threads > 1) {
    const [, ms] = await timeIt(() => initialize({ workers: options.threads }));
    process.stderr.write(`tsge initialize({ workers: ${options.threads} }): ${ms.toFixed(0)} ms\n`);
  }
  const results: ModelResult[] = [];
  for (const [i, m] of selected.entries()) {
    process.stderr.write(`(${i + 1}/${selected.length}) ${m.id}\n`);
    try {
      results.push(await benchOne(await materializeModel(m, outDir), options, outDir));
    } catch (e) {
      results.push({
        id: m.id,
        compileMs: Number.NaN,
        load: {},
        latency: {},
        firstRun: {},
        ratios: {},
        peakRssMB: process.resourceUsage().maxRSS / 1024,
        error: e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e),
      });
    }
  }
  const tflite = tfliteBenchModels(repoRoot).filter((m) => !options.models || options.models.includes(m.id));
  const tfliteResults: TfliteResult[] = [];
  for (const [i, m] of tflite.entries()) {
    process.stderr.write(`(${i + 1}/${tflite.length}) ${m.id}\n`);
    try {
      tfliteResults.push(await benchTflite(m, options, untilQuiet));
    } catch (e) {
      tfliteResults.push({ id: m.id, latency: {}, ratios: {}, error: e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e) });
    }
  }
  const tfjsResults: TfjsResult[] = [];
  for (const m of tfjsBenchModels().filter((m) => !options.models || options.models.includes(m.id)))
    tfjsResults.push(
      await benchTfjs(m, options, untilQuiet).catch((e: unknown) => ({
        id: m.id,
        kind: m.kind,
        latency: {},
        error: String(e).split('\n')[0] ?? '',
      })),
    );
  console.log(machineLine(options));
  // a run of only TFLite or TF.js models has no ONNX rows: no empty table with a geomean of nothing
  if (results.length) console.log(`\n${table(results)}`);
  if (tfliteResults.length)
    console.log(
      `\nLiteRT runs its single-threaded wasm build (XNNPACK); tsge uses ${options.threads} thread(s).\n\n${tfliteTable(tfliteResults)}`,
    );
  if (tfjsResults.length) console.log(`\n${tfjsTable(tfjsResults, options.threads)}`);
  const jsonPath = options.json ?? path.join(outDir, 'bench.json');
  await writeFile(
    jsonPath,
    JSON.stringify(
      {
        machine: { cpu: os.cpus()[0]?.model, threads: os.availableParallelism(), node: process.version },
        options,
        results,
        tflite: tfliteResults,
        tfjs: tfjsResults,
      },
      null,
      2,
    ),
  );
  console.error(`\nJSON written to ${jsonPath}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
