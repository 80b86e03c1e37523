// pnpm conformance --suite <dir> [--filter s] [--json f] [--engine pipeline|pipeline-host|interpreter|ort-adapter] [--device cpu|js]
//   (--suite human-models: --engine pipeline|tfjs-adapter|tfjs-adapter-sync)
//   [--expected-failures f] [--update-expected] [--ci] [--timeout ms] [--jobs n] [--in-process]
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DEFAULT_TOLERANCE } from './compare.js';
import { DEFAULT_ENGINE, DEVICE_NAMES, type DeviceName, ENGINE_NAMES, type EngineName } from './engines.js';
import { readExpectedFailures, writeExpectedFailures } from './expected-failures.js';
import type { TestResult } from './run-test.js';
import { type TestCase, discoverTests } from './test-case.js';
import type { WorkerRequest } from './worker.js';

interface Options {
  suite: string;
  filters: string[];
  json: string | undefined;
  engine: EngineName | 'tfjs-adapter' | 'tfjs-adapter-sync';
  /** The device the pipeline engines load models on. */
  device: DeviceName;
  expectedFailures: string | undefined;
  updateExpected: boolean;
  ci: boolean;
  /** Per-test limit; undefined: 20 s for node-style tests, 300 s for whole `light` models. */
  timeoutMs: number | undefined;
  jobs: number;
  inProcess: boolean;
  rtol: number;
  atol: number;
  /** `[k, n]`: run only the k-th (1-based) of n contiguous parts of the sorted test list. */
  shard: [number, number] | undefined;
}

function usage(message: string): never {
  console.error(`${message}
usage: pnpm conformance --suite <dir> [--filter <substring>[,<substring>...]] [--json <file>]
       [--engine pipeline|pipeline-host|interpreter|ort-adapter (human-models: pipeline|tfjs-adapter|tfjs-adapter-sync)]
       [--device cpu|js] [--expected-failures <file>] [--update-expected] [--ci]
       [--timeout <ms>] [--jobs <n>] [--shard <k>/<n>] [--in-process] [--rtol <x>] [--atol <x>]`);
  process.exit(2);
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = {
    suite: '',
    filters: [],
    json: undefined,
    engine: DEFAULT_ENGINE,
    device: 'cpu',
    expectedFailures: undefined,
    updateExpected: false,
    ci: false,
    timeoutMs: undefined,
    jobs: 1,
    inProcess: false,
    rtol: DEFAULT_TOLERANCE.rtol,
    atol: DEFAULT_TOLERANCE.atol,
    shard: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) usage(`${arg} needs a value`);
      return v;
    };
    const number = (): number => {
      const v = Number(value());
      if (!Number.isFinite(v) || v < 0) usage(`${arg} needs a non-negative number`);
      return v;
    };
    switch (arg) {
      case '--suite':
        options.suite = value();
        break;
      case '--filter':
        options.filters.push(...value().split(',').filter(Boolean));
        break;
      case '--json':
        options.json = value();
        break;
      case '--engine': {
        const e = value();
        if (!(ENGINE_NAMES as readonly string[]).includes(e) && e !== 'tfjs-adapter' && e !== 'tfjs-adapter-sync')
          usage(`unknown engine ${e}`);
        options.engine = e as EngineName | 'tfjs-adapter' | 'tfjs-adapter-sync';
        break;
      }
      case '--device': {
        const d = value();
        if (!(DEVICE_NAMES as readonly string[]).includes(d)) usage(`unknown device ${d}; the devices are ${DEVICE_NAMES.join(', ')}`);
        options.device = d as DeviceName;
        break;
      }
      case '--expected-failures':
        options.expectedFailures = value();
        break;
      case '--update-expected':
        options.updateExpected = true;
        break;
      case '--ci':
        options.ci = true;
        break;
      case '--timeout':
        options.timeoutMs = number();
        break;
      case '--jobs':
        options.jobs = Math.max(1, Math.floor(number()));
        break;
      case '--in-process':
        options.inProcess = true;
        break;
      case '--rtol':
        options.rtol = number();
        break;
      case '--atol':
        options.atol = number();
        break;
      case '--shard': {
        const m = /^(\d+)\/(\d+)$/.exec(value());
        const k = Number(m?.[1]);
        const n = Number(m?.[2]);
        if (!m || n < 1 || k < 1 || k > n) usage('--shard needs k/n with 1 <= k <= n');
        options.shard = [k, n];
        break;
      }
      case '--':
        break;
      default:
        usage(`unknown option ${arg}`);
    }
  }
  if (!options.suite) usage('--suite is required');
  return options;
}

/** Runs tests in worker threads; a test that times out or crashes ends its worker, which is replaced. */
async function runInWorkers(tests: readonly TestCase[], options: Options, onResult: (r: TestResult) => void): Promise<TestResult[]> {
  const results: TestResult[] = new Array(tests.length);
  let next = 0;
  // Workers do not inherit tsx's loader hooks: register them in the worker before importing it.
  const workerUrl = new URL('./worker.ts', import.meta.url).href;
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(workerUrl)}); });`;
  const tolerance = { rtol: options.rtol, atol: options.atol };
  // workers that die before finishing any test, in a row: the code cannot load, stop trying
  let startupFailures = 0;
  let startupReason = '';
  const lane = async (): Promise<void> => {
    let worker: Worker | undefined;
    let finishedByWorker = 0;
    while (next < tests.length) {
      const index = next++;
      const test = tests[index] as TestCase;
      if (startupFailures >= 3) {
        const r: TestResult = { name: test.name, status: 'failed', reason: `worker cannot start: ${startupReason}`, error: true };
        results[index] = r;
        onResult(r);
        continue;
      }
      if (!worker) {
        worker = new Worker(bootstrap, { eval: true });
        finishedByWorker = 0;
      }
      const current = worker;
      const limit = options.timeoutMs ?? (test.layout === 'light' ? 300_000 : 20_000);
      const result = await new Promise<TestResult>((resolve) => {
        const finish = (r: TestResult, broken: boolean): void => {
          clearTimeout(timer);
          current.off('message', onMessage);
          current.off('error', onError);
          current.off('exit', onExit);
          if (broken) {
            void current.terminate();
            worker = undefined;
            if (finishedByWorker === 0 && !r.reason.startsWith('timed out')) {
              startupFailures++;
              startupReason = r.reason;
            }
          } else {
            finishedByWorker++;
            startupFailures = 0;
          }
          resolve(r);
        };
        const timer = setTimeout(
          () => finish({ name: test.name, status: 'failed', reason: `timed out after ${limit} ms`, error: true }, true),
          limit,
        );
        const onMessage = (message: { id: number; result: TestResult }): void => {
          if (message.id === index) finish(message.result, false);
        };
        const onError = (error: Error): void =>
          finish({ name: test.name, status: 'failed', reason: `worker crashed: ${error.message}`, error: true }, true);
        const onExit = (code: number): void =>
          finish({ name: test.name, status: 'failed', reason: `worker exited with code ${code}`, error: true }, true);
        current.on('message', onMessage);
        current.on('error', onError);
        current.on('exit', onExit);
        const request: WorkerRequest = { id: index, test, engine: options.engine as EngineName, device: options.device, tolerance };
        current.postMessage(request);
      });
      results[index] = result;
      onResult(result);
    }
    if (worker) await worker.terminate();
  };
  await Promise.all(Array.from({ length: Math.min(options.jobs, tests.length) }, lane));
  return results;
}

async function runInProcess(tests: readonly TestCase[], options: Options, onResult: (r: TestResult) => void): Promise<TestResult[]> {
  const { createEngine } = await import('./engines.js');
  const { runTest } = await import('./run-test.js');
  const engine = await createEngine(options.engine as EngineName, options.device);
  const results: TestResult[] = [];
  for (const test of tests) {
    const r = await runTest(test, engine, { rtol: options.rtol, atol: options.atol });
    results.push(r);
    onResult(r);
  }
  return results;
}

/** The k-th of n contiguous, nearly equal parts (so CI machines or processes can split a suite). */
function shardOf<T>(items: readonly T[], [k, n]: [number, number]): T[] {
  const size = Math.ceil(items.length / n);
  return items.slice((k - 1) * size, k * size);
}

/** `--suite human-models`: per-model parse / compile / run / match against TensorFlow.js (wasm). */
async function humanModels(options: Options): Promise<void> {
  const { HUMAN_MODELS_ENGINES, runHumanModels } = await import('./human-models.js');
  const engine = HUMAN_MODELS_ENGINES.find((e) => e === options.engine);
  if (!engine) usage(`--suite human-models runs on engine ${HUMAN_MODELS_ENGINES.join(' or ')}, not ${options.engine}`);
  // the issue's tolerance for TensorFlow models, unless given
  const defaults = options.rtol === DEFAULT_TOLERANCE.rtol && options.atol === DEFAULT_TOLERANCE.atol;
  const rtol = defaults ? 1e-4 : options.rtol;
  const atol = defaults ? 1e-5 : options.atol;
  const results = await runHumanModels({
    filters: options.filters,
    engine,
    rtol,
    atol,
    onResult: (r) => {
      const stage = r.match ? 'match' : r.run ? 'run' : r.compile ? 'compile' : r.parse ? 'parse' : 'none';
      console.log(`${r.match ? 'PASS' : 'FAIL'} ${r.name} (reached ${stage}, ${r.seconds.toFixed(1)} s)${r.reason ? `: ${r.reason}` : ''}`);
    },
  });
  const count = (key: 'parse' | 'compile' | 'run' | 'match') => results.filter((r) => r[key]).length;
  if (options.json)
    writeFileSync(
      options.json,
      `${JSON.stringify({ suite: 'human-models', total: results.length, parse: count('parse'), compile: count('compile'), run: count('run'), match: count('match'), rtol, atol, models: results }, null, 2)}\n`,
    );
  const passed = count('match');
  console.log(`${passed} passed, ${results.length - passed} failed`);
  if (options.ci && options.expectedFailures) {
    const known = readExpectedFailures(path.resolve(options.expectedFailures));
    const regressions = results.filter((r) => !r.match && !known.has(r.name));
    for (const r of regressions) console.log(`REGRESSION ${r.name}: ${r.reason}`);
    if (regressions.length) process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.suite === 'human-models') return humanModels(options);
  if (options.engine === 'tfjs-adapter' || options.engine === 'tfjs-adapter-sync')
    usage(`engine ${options.engine} runs --suite human-models only`);
  const all = discoverTests(options.suite);
  const filtered = options.filters.length ? all.filter((t) => options.filters.some((f) => t.name.includes(f))) : all;
  const tests = options.shard ? shardOf(filtered, options.shard) : filtered;
  const expectedFile = options.expectedFailures ? path.resolve(options.expectedFailures) : undefined;
  const known = expectedFile ? readExpectedFailures(expectedFile) : new Map<string, string>();
  const onResult = (r: TestResult): void => {
    if (r.status === 'failed') console.log(`FAIL${known.has(r.name) ? ' (known)' : ''} ${r.name}: ${r.reason}`);
    else if (r.status === 'skipped') console.log(`SKIP ${r.name}: ${r.reason}`);
  };
  const results = options.inProcess ? await runInProcess(tests, options, onResult) : await runInWorkers(tests, options, onResult);
  const passed = results.filter((r) => r.status === 'passed').length;
  const failed = results.filter((r) => r.status === 'failed').length;
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const errors = results.filter((r) => r.error).length;
  if (options.json) {
    const report = {
      total: results.length,
      passed,
      failed,
      skipped,
      errors,
      tests: results.map((r) => ({ name: r.name, status: r.status, reason: r.reason })),
    };
    writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
  }
  if (options.updateExpected && expectedFile) writeExpectedFailures(expectedFile, known, results);
  let exitCode = 0;
  if (options.ci) {
    const regressions = results.filter((r) => r.status === 'failed' && !known.has(r.name));
    const nowPassing = results.filter((r) => r.status === 'passed' && known.has(r.name));
    for (const r of nowPassing) console.log(`NOW PASSING (remove from the expected-failures list): ${r.name}`);
    for (const r of regressions) console.log(`REGRESSION ${r.name}: ${r.reason}`);
    if (regressions.length) exitCode = 1;
  }
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = exitCode;
}

await main();
