// `pnpm bench:dflow`: per-message overhead of a flow hop in process and over NATS JetStream on
// loopback (p50/p99), and the OCR pipeline's throughput over N pages pipelined against the same
// stages run one page after another (each point on its own worker in every case; one page after
// another both with 1 kernel thread per model and with every core per model, the faster being the
// baseline). Flags: --pages N (default 50), --rounds R (default 5: the pages run in R rounds that
// alternate the ways, so that the load of a shared machine weighs on all alike), --rec-instances N
// (rec instances when pipelined, default 1), --messages N (default 2000), --skip-nats.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  FlowData,
  FlowGraph,
  FlowNode,
  type FlowSession,
  FunctionPp,
  deployFlow,
  loadFlowModel,
  saveFlowModel,
  startFlow,
} from '@tsge/dflow';
import { startAgent, startNatsServer } from '@tsge/dflow/testing';
import type { HostTensor } from '@tsge/metadef';
import { ocrGraph } from './pipeline.js';
import { collectPages } from './read-page.js';
import { characterAccuracy, renderPage } from './render-page.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '5' },
    messages: { type: 'string', default: '2000' },
    'rec-instances': { type: 'string', default: '1' },
    'skip-nats': { type: 'boolean' },
  },
});
const PAGES = Number(values.pages);
const ROUNDS = Number(values.rounds);
if (!(Number.isSafeInteger(PAGES) && PAGES > 0 && Number.isSafeInteger(ROUNDS) && ROUNDS > 0 && ROUNDS <= PAGES))
  throw new Error('--pages and --rounds must be positive integers, rounds at most pages');
const MESSAGES = Number(values.messages);
const REC_INSTANCES = Number(values['rec-instances']);
if (!(Number.isSafeInteger(REC_INSTANCES) && REC_INSTANCES > 0 && REC_INSTANCES <= 8))
  throw new Error('--rec-instances must be an integer from 1 to 8');
const FIXTURES = import.meta.resolve('./bench-functions.js').replace(/\.js$/, import.meta.url.endsWith('.ts') ? '.ts' : '.js');

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;

function chain(length: number): FlowGraph {
  const x = new FlowData();
  let end = x as FlowData | ReturnType<FlowNode['call']>[number];
  for (let i = 0; i < length; i++) {
    const node = new FlowNode(1, 1, { name: `hop${i}` });
    node.addProcessPoint(new FunctionPp({ module: FIXTURES, export: 'identity', inputCount: 1, outputCount: 1 }));
    [end] = node.call(end as FlowData);
  }
  return new FlowGraph([end as ReturnType<FlowNode['call']>[number]], { name: `chain${length}` });
}

/** Latencies (ms) of `count` messages sent one at a time through a session. */
async function latencies(session: FlowSession, count: number): Promise<number[]> {
  const value: HostTensor = { type: 'float32', dims: [16], data: new Float32Array(16) };
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await session.feed([value]);
    await session.fetch();
    samples.push(performance.now() - t);
  }
  return samples.slice(Math.floor(count / 10)).sort((a, b) => a - b); // the first tenth warms up
}

function hopReport(label: string, short: number[], long: number[], hops: number): string {
  const p50 = (percentile(long, 50) - percentile(short, 50)) / hops;
  const p99 = (percentile(long, 99) - percentile(short, 99)) / hops;
  return `${label}: per hop p50 ${(p50 * 1000).toFixed(1)} µs, p99 ${(p99 * 1000).toFixed(1)} µs (end to end: ${hops + 1} nodes p50 ${percentile(long, 50).toFixed(3)} ms, 1 node p50 ${percentile(short, 50).toFixed(3)} ms)`;
}

async function inProcessHop(): Promise<string> {
  const hops = 10;
  const one = await startFlow(chain(1));
  const many = await startFlow(chain(hops + 1));
  try {
    return hopReport('in-process hop', await latencies(one, MESSAGES), await latencies(many, MESSAGES), hops);
  } finally {
    await one.close();
    await many.close();
  }
}

async function natsHop(dir: string, url: string): Promise<string> {
  const hops = 4;
  const sessions: FlowSession[] = [];
  for (const length of [1, hops + 1]) {
    const graph = chain(length);
    writeFileSync(path.join(dir, `chain${length}.om`), await saveFlowModel(graph));
    const deployment = {
      version: 1,
      name: `chain${length}`,
      model: `chain${length}.om`,
      placement: graph.nodes.map((n) => ({ node: n.name, host: 'bench' })),
    };
    writeFileSync(path.join(dir, `chain${length}.json`), JSON.stringify(deployment));
    sessions.push(await deployFlow({ servers: url, deployment: path.join(dir, `chain${length}.json`), readyTimeoutMs: 120_000 }));
  }
  try {
    const count = Math.min(MESSAGES, 500);
    return hopReport(
      'NATS JetStream hop (loopback)',
      await latencies(sessions[0] as FlowSession, count),
      await latencies(sessions[1] as FlowSession, count),
      hops,
    );
  } finally {
    for (const s of sessions) await s.close();
  }
}

const TEXTS = [
  'Hello World 2024',
  'tsge dataflow',
  'PP-OCRv4 pipeline',
  'quick brown fox 42',
  'jumps over 17 dogs',
  'stream of pages',
  'NATS JetStream',
  'graph engine',
];
const PAGE = { height: 320, width: 480 } as const;

/** One way of running the OCR stages: its session, and what the rounds measured. */
interface OcrRun {
  readonly label: string;
  readonly pipelined: boolean;
  readonly session: FlowSession;
  ms: number;
  cpuMs: number;
  readonly results: Awaited<ReturnType<typeof collectPages>>;
}

/** Whether Linux shares the CPU per session (autogroup) rather than per thread. */
function autogroup(): string {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1' ? 'on' : 'off';
  } catch {
    return 'n/a';
  }
}

async function ocrThroughput(): Promise<string> {
  const pages = Array.from({ length: PAGES }, (_, i) => Array.from({ length: 4 }, (_, k) => TEXTS[(i + k * 3) % TEXTS.length] as string));
  const images = pages.map((lines) => renderPage(lines, PAGE));
  const threads = os.availableParallelism();
  // Every way has its own session (each point on its own worker thread): one page after another
  // with 1 kernel thread per model and with every core per model (the better of the two is the
  // baseline), and pipelined with 1 kernel thread per model (the stages overlap instead).
  const ways = [
    { label: 'one page after another, 1 thread per model', pipelined: false, modelThreads: 1, recInstances: 1 },
    { label: `one page after another, ${threads} threads per model`, pipelined: false, modelThreads: threads, recInstances: 1 },
    {
      label: `pipelined, 1 thread per model, ${REC_INSTANCES} rec instance(s)`,
      pipelined: true,
      modelThreads: 1,
      recInstances: REC_INSTANCES,
    },
  ];
  const runs: OcrRun[] = [];
  const fedAs = new Map<string, number>(); // way:transaction id → page index
  try {
    for (const way of ways) {
      const model = await loadFlowModel(await saveFlowModel(ocrGraph({ ...PAGE, ...way })));
      const session = await startFlow(model, { placement: 'workers', fetchTimeoutMs: 120_000 });
      runs.push({ label: way.label, pipelined: way.pipelined, session, ms: 0, cpuMs: 0, results: [] });
      // warm up: every point has run once
      await session.feed([images[0] as HostTensor]);
      await collectPages(session, 1, 120_000);
    }
    const loadBefore = os.loadavg()[0] as number;
    for (let r = 0; r < ROUNDS; r++) {
      const from = Math.floor((r * PAGES) / ROUNDS);
      const to = Math.floor(((r + 1) * PAGES) / ROUNDS);
      for (const [w, run] of runs.entries()) {
        const feed = async (index: number): Promise<void> => {
          fedAs.set(`${w}:${await run.session.feed([images[index] as HostTensor])}`, index);
        };
        const cpu = process.cpuUsage();
        const t = performance.now();
        if (run.pipelined) {
          // pages fed as fast as the queues take them, stages overlapping
          const feeding = (async () => {
            for (let i = from; i < to; i++) await feed(i);
          })();
          run.results.push(...(await collectPages(run.session, to - from, 120_000)));
          await feeding;
        } else {
          for (let i = from; i < to; i++) {
            await feed(i);
            run.results.push(...(await collectPages(run.session, 1, 120_000)));
          }
        }
        run.ms += performance.now() - t;
        const used = process.cpuUsage(cpu);
        run.cpuMs += (used.user + used.system) / 1000;
      }
    }
    const accuracy = (w: number): number =>
      (runs[w] as OcrRun).results.reduce(
        (sum, r) => sum + characterAccuracy(pages[fedAs.get(`${w}:${r.transactionId}`) as number] as string[], r.lines),
        0,
      ) / PAGES;
    const stage = (run: OcrRun, node: string): string => {
      const latency = run.session.stats()[node]?.latencyMs;
      return `${node} ${latency ? latency.p50.toFixed(0) : '-'} ms`;
    };
    const lines = runs.map(
      (run, w) =>
        `  ${`${run.label}:`.padEnd(58)} ${(run.ms / 1000).toFixed(2)} s (${((PAGES * 1000) / run.ms).toFixed(2)} pages/s), ` +
        `${(run.cpuMs / run.ms).toFixed(2)} cores busy, proc p50 ${['det', 'post', 'cls', 'rec'].map((n) => stage(run, n)).join(', ')}, ` +
        `character accuracy ${(accuracy(w) * 100).toFixed(1)}%`,
    );
    const best = Math.min(...runs.filter((r) => !r.pipelined).map((r) => r.ms));
    const pipelined = runs.find((r) => r.pipelined) as OcrRun;
    return [
      `OCR pipeline, ${PAGES} pages of ${PAGE.width}×${PAGE.height} (4 lines each) each way, in ${ROUNDS} alternating rounds ` +
        `(load ${loadBefore.toFixed(1)} → ${(os.loadavg()[0] as number).toFixed(1)}, sched_autogroup ${autogroup()}):`,
      ...lines,
      `  speed-up against the faster one-page-after-another run: ${(best / pipelined.ms).toFixed(2)}×`,
    ].join('\n');
  } finally {
    for (const run of runs) await run.session.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `tsge dflow bench — ${os.cpus()[0]?.model ?? 'cpu'}, ${os.availableParallelism()} threads, load ${os.loadavg()[0]?.toFixed(1)}, Node ${process.version}\n`,
  );
  console.log(await inProcessHop());
  if (!values['skip-nats']) {
    const server = await startNatsServer();
    const agent = startAgent(server.url, 'bench');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tsge-bench-'));
    try {
      console.log(await natsHop(dir, server.url));
    } finally {
      await agent.stop();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(await ocrThroughput());
}

await main();
