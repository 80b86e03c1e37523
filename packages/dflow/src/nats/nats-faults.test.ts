// Host agents killed mid-stream under keyed joins with several instances and under batch points:
// every fed transaction still comes out exactly once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { HostTensor } from '@tsge/metadef';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CountBatch, FlowData, FlowGraph, FlowNode, FunctionPp, deployFlow, saveFlowModel } from '../index.js';
import { type Agent, type NatsServer, startAgent, startNatsServer } from '../testing/nats.js';
import type { NodeReport } from './agent.js';
import { joinedMarks, nodeInputEdge, statsSubject } from './topology.js';

const fixtures = new URL('../../test/functions.fixture.ts', import.meta.url).href;
const f32 = (...values: number[]): HostTensor => ({ type: 'float32', dims: [values.length], data: Float32Array.from(values) });

function fn(name: string, exportName: string, inputs: number, params = {}): FlowNode {
  const node = new FlowNode(inputs, 1, { name, queueDepth: 64 });
  node.addProcessPoint(new FunctionPp({ module: fixtures, export: exportName, params, inputCount: inputs, outputCount: 1 }));
  return node;
}

let server: NatsServer;
let dir: string;
/** Hosts c and d run the join test (c is killed), d and e the batch test (e is killed). */
let agents: Record<'c' | 'd' | 'e', Agent>;

beforeAll(async () => {
  server = await startNatsServer();
  agents = { c: startAgent(server.url, 'c'), d: startAgent(server.url, 'd'), e: startAgent(server.url, 'e') };
  dir = mkdtempSync(path.join(os.tmpdir(), 'tsge-dflow-faults-'));
}, 30000);
afterAll(async () => {
  if (agents) await Promise.all(Object.values(agents).map((a) => a.stop()));
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function writeDeployment(name: string, graph: FlowGraph, placement: object[], extra = {}): Promise<string> {
  writeFileSync(path.join(dir, `${name}.om`), await saveFlowModel(graph));
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ version: 1, name, model: `${name}.om`, placement, ...extra }));
  return file;
}

/** Each host's report for one node, asked on the deployment's stats subject. */
async function perHost(deployment: string, node: string, hosts: number): Promise<Map<string, NodeReport>> {
  const nc = await connect({ servers: server.url });
  try {
    const replies = await nc.requestMany(statsSubject(deployment), '', { strategy: 'count', maxMessages: hosts, maxWait: 2000 });
    const out = new Map<string, NodeReport>();
    for await (const r of replies) {
      const body = r.json<{ host: string; nodes: Record<string, NodeReport> }>();
      const report = body.nodes[node];
      if (report) out.set(body.host, report);
    }
    return out;
  } finally {
    await nc.close();
  }
}

describe('agent faults over NATS JetStream', () => {
  it('runs a two-input node as four instances on two hosts and loses nothing when one host is killed', async () => {
    const N = 200;
    const x = new FlowData();
    const [y] = fn('work', 'slowIdentity', 1, { delayMs: 3 }).call(x);
    const [z] = fn('join', 'add', 2).call(y!, x);
    const file = await writeDeployment(
      'joinfault',
      new FlowGraph([z!]),
      [
        { node: 'work', host: 'c' },
        { node: 'work', host: 'd' },
        { node: 'join', host: 'c', instances: 2 },
        { node: 'join', host: 'd', instances: 2 },
      ],
      { ackWaitMs: 1500, maxDeliver: 10 },
    );
    const session = await deployFlow({ servers: server.url, deployment: file, fetchTimeoutMs: 30000 });
    try {
      const feeding = (async () => {
        for (let i = 0; i < N; i++) await session.feed([f32(i)], { transactionId: i });
      })();
      const counts = new Map<number, number>();
      for (let k = 0; k < N; k++) {
        if (k === 40) {
          const before = await perHost('joinfault', 'join', 2);
          expect([...before.values()].every((r) => r.processed > 0)).toBe(true); // both hosts were joining
          await agents.c.stop('SIGKILL');
        }
        const [m] = await session.fetch();
        expect(m!.error).toBeUndefined();
        const id = m!.header.transactionId;
        expect(((m!.value as HostTensor).data as Float32Array)[0]).toBe(2 * id);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      await feeding;
      expect(counts.size).toBe(N);
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
      await expect(session.fetch(undefined, { timeoutMs: 2000 })).rejects.toMatchObject({ code: 'TSGE-E8106' });
      // every joined input is eventually acknowledged or deleted; the surviving agents' stats arrive
      // on their own schedule after the fault, so a read right after the last fetch can be one behind
      let stats = await session.refreshStats();
      for (let i = 0; i < 50 && stats.join?.queued?.some((q) => q !== 0); i++) {
        await new Promise((r) => setTimeout(r, 100));
        stats = await session.refreshStats();
      }
      expect(stats.join?.queued).toEqual([0, 0]);
    } finally {
      await session.close();
    }
  }, 90000);

  it('holds the inputs of a partial batch until the batch is out: a killed host loses none', async () => {
    const N = 24;
    const x = new FlowData({ dtype: 'float32', shape: [1] });
    const batch = new FlowNode(1, 1, { name: 'batch', queueDepth: 64 });
    batch.addProcessPoint(new CountBatch({ count: 1000, timeoutMs: 2500 }));
    const file = await writeDeployment(
      'batchfault',
      new FlowGraph(batch.call(x)),
      [
        { node: 'batch', host: 'e' },
        { node: 'batch', host: 'd' },
      ],
      { ackWaitMs: 1500, maxDeliver: 10 },
    );
    const session = await deployFlow({ servers: server.url, deployment: file, fetchTimeoutMs: 20000 });
    try {
      for (let i = 0; i < N; i++) await session.feed([f32(i)], { transactionId: i });
      // both hosts hold part of the stream in a batch that has not flushed yet
      for (;;) {
        const reports = await perHost('batchfault', 'batch', 2);
        const got = [...reports.values()].map((r) => r.received);
        if (got.length === 2 && got.every((n) => n > 0) && got[0]! + got[1]! === N) break;
        expect(got.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(N);
        await new Promise((r) => setTimeout(r, 50));
      }
      await agents.e.stop('SIGKILL');
      const counts = new Map<number, number>();
      let rows = 0;
      while (rows < N) {
        const [m] = await session.fetch();
        expect(m!.error).toBeUndefined();
        for (const v of (m!.value as HostTensor).data as Float32Array) counts.set(v, (counts.get(v) ?? 0) + 1);
        rows += (m!.value as HostTensor).dims[0] as number;
      }
      expect([...counts.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i));
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
      await expect(session.fetch(undefined, { timeoutMs: 3000 })).rejects.toMatchObject({ code: 'TSGE-E8106' });
    } finally {
      await session.close();
    }
  }, 60000);
  it('settles what a host killed between acknowledging input 0 and deleting the partners left behind', async () => {
    // A crash in that window leaves the transaction's settled mark: the partner it left is swept,
    // and a redelivered input 0 is acknowledged without joining (and emitting) again.
    const [a, b] = [new FlowData(), new FlowData()];
    const graph = new FlowGraph(fn('join', 'add', 2).call(a, b));
    const file = await writeDeployment('marks', graph, [{ node: 'join', host: 'd', instances: 2 }], { ackWaitMs: 1500 });
    const session = await deployFlow({ servers: server.url, deployment: file, fetchTimeoutMs: 10000 });
    const nc = await connect({ servers: server.url });
    try {
      const js = jetstream(nc);
      const { spec } = graph.compile();
      const marks = joinedMarks('marks', 0);
      const partner = nodeInputEdge(spec, 'marks', 0, 1);
      // transaction 7: joined and acknowledged, partner not yet deleted
      await js.publish(`${marks.subject}.7.0`, new Uint8Array(0));
      await js.publish(`${partner.subject}.7.0`, new Uint8Array(0), { msgID: '7.0' });
      // transaction 8: joined, input 0 not acknowledged: it comes again with its partner
      await js.publish(`${marks.subject}.8.0`, new Uint8Array(0));
      await session.feed([f32(1), f32(2)], { transactionId: 8 });
      // transaction 9: an ordinary one still joins
      await session.feed([f32(3), f32(4)], { transactionId: 9 });
      const [m] = await session.fetch();
      expect(m!.header.transactionId).toBe(9);
      expect(((m!.value as HostTensor).data as Float32Array)[0]).toBe(7);
      await expect(session.fetch(undefined, { timeoutMs: 1500 })).rejects.toMatchObject({ code: 'TSGE-E8106' });
      let stats = await session.refreshStats();
      for (let i = 0; i < 50 && stats.join?.queued?.some((q) => q !== 0); i++) {
        await new Promise((r) => setTimeout(r, 100));
        stats = await session.refreshStats();
      }
      expect(stats.join?.queued).toEqual([0, 0]);
      expect(stats.join?.processed).toBe(1);
      expect(stats.join?.dropped).toBe(0);
    } finally {
      await nc.close();
      await session.close();
    }
  }, 60000);
});
