// `pnpm bench:dflow`: per-message overhead of a flow hop in process and over NATS JetStream on
// loopback (p50/p99), and the OCR pipeline's throughput over N pages against the same stages run
// one page after another (each point on its own worker in both cases). Flags: --pages N (default 50),
// --rounds R (default 5: the pages run in R rounds that alternate both ways, so that the load of a
// shared machine weighs on both alike), --messages N (default 2000), --skip-nats.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
    'skip-nats': { type: 'boolean' },
  },
});
const PAGES = Number(values.pages);
const ROUNDS = Number(values.rounds);
if (!(Number.isSafeInteger(PAGES) && PAGES > 0 && Number.isSafeInteger(ROUNDS) && ROUNDS > 0 && ROUNDS <= PAGES))
  throw new Error('--pages and --rounds must be positive integers, rounds at most pages');
const MESSAGES = Number(values.messages);
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

async function ocrThroughput(): Promise<string> {
  const pages = Array.from({ length: PAGES }, (_, i) => Array.from({ length: 4 }, (_, k) => TEXTS[(i + k * 3) % TEXTS.length] as string));
  const images = pages.map((lines) => renderPage(lines, PAGE));
  const model = await loadFlowModel(await saveFlowModel(ocrGraph(PAGE)));
  // each point on its own worker thread, so that stages can overlap on the cores
  const session = await startFlow(model, { placement: 'workers', fetchTimeoutMs: 120_000 });
  try {
    // warm up: every point has run once
    await session.feed([images[0] as HostTensor]);
    await collectPages(session, 1, 120_000);
    const sequential: Awaited<ReturnType<typeof collectPages>> = [];
    const pipelined: Awaited<ReturnType<typeof collectPages>> = [];
    const fedAs = new Map<number, number>(); // transaction id → page index
    const feed = async (index: number): Promise<void> => {
      fedAs.set(await session.feed([images[index] as HostTensor]), index);
    };
    let sequentialMs = 0;
    let pipelinedMs = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const from = Math.floor((r * PAGES) / ROUNDS);
      const to = Math.floor(((r + 1) * PAGES) / ROUNDS);
      // the same stages, one page after another
      let t = performance.now();
      for (let i = from; i < to; i++) {
        await feed(i);
        sequential.push(...(await collectPages(session, 1, 120_000)));
      }
      sequentialMs += performance.now() - t;
      // pipelined: pages fed as fast as the queues take them, stages overlapping
      t = performance.now();
      const feeding = (async () => {
        for (let i = from; i < to; i++) await feed(i);
      })();
      pipelined.push(...(await collectPages(session, to - from, 120_000)));
      await feeding;
      pipelinedMs += performance.now() - t;
    }
    const accuracy = (results: typeof sequential): number =>
      results.reduce((sum, r) => sum + characterAccuracy(pages[fedAs.get(r.transactionId) as number] as string[], r.lines), 0) /
      results.length;
    return [
      `OCR pipeline, ${PAGES} pages of ${PAGE.width}×${PAGE.height} (4 lines each) each way, in ${ROUNDS} alternating rounds:`,
      `  one page after another: ${(sequentialMs / 1000).toFixed(2)} s (${((PAGES * 1000) / sequentialMs).toFixed(2)} pages/s), character accuracy ${(accuracy(sequential) * 100).toFixed(1)}%`,
      `  pipelined:              ${(pipelinedMs / 1000).toFixed(2)} s (${((PAGES * 1000) / pipelinedMs).toFixed(2)} pages/s), character accuracy ${(accuracy(pipelined) * 100).toFixed(1)}%`,
      `  speed-up: ${(sequentialMs / pipelinedMs).toFixed(2)}×`,
    ].join('\n');
  } finally {
    await session.close();
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
