import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HostTensor } from '@tsge/metadef';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, type NatsServer, startAgent, startNatsServer } from '../testing/nats.js';
import { FlowData, FlowGraph, FlowNode, FunctionPp, deployFlow, saveFlowModel } from '../index.js';

const fixtures = new URL('../../test/functions.fixture.ts', import.meta.url).href;
const f32 = (...values: number[]): HostTensor => ({ type: 'float32', dims: [values.length], data: Float32Array.from(values) });

function fn(name: string, exportName: string, inputs: number, params = {}, queueDepth = 16): FlowNode {
  const node = new FlowNode(inputs, 1, { name, queueDepth });
  node.addProcessPoint(new FunctionPp({ module: fixtures, export: exportName, params, inputCount: inputs, outputCount: 1 }));
  return node;
}

let server: NatsServer;
let agents: Agent[] = [];
let dir: string;

beforeAll(async () => {
  server = await startNatsServer();
  agents = [startAgent(server.url, 'a'), startAgent(server.url, 'b')];
  dir = mkdtempSync(path.join(os.tmpdir(), 'tsge-dflow-'));
}, 30000);
afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function writeDeployment(
  name: string,
  graph: FlowGraph,
  placement: { node: string; host: string; instances?: number }[],
  extra = {},
): Promise<string> {
  writeFileSync(path.join(dir, `${name}.om`), await saveFlowModel(graph));
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ version: 1, name, model: `${name}.om`, placement, ...extra }));
  return file;
}

describe('over NATS JetStream', () => {
  it('runs a flow placed on two host agents: a keyed join on both, errors, stats and bad feeds', async () => {
    const x = new FlowData({ dtype: 'float32', shape: [-1] });
    const [a] = fn('double', 'scale', 1, { factor: 2 }).call(x);
    const [b] = fn('check', 'failOnNegative', 1).call(x);
    const [sum] = fn('sum', 'add', 2).call(a!, b!);
    const file = await writeDeployment('diamond', new FlowGraph([sum!]), [
      { node: 'double', host: 'a' },
      { node: 'check', host: 'b' },
      { node: 'sum', host: 'a' },
      { node: 'sum', host: 'b' },
    ]);
    const session = await deployFlow({ servers: server.url, deployment: file, fetchTimeoutMs: 20000 });
    try {
      for (let i = 0; i < 10; i++) await session.feed([f32(i - 2, i)], { transactionId: i, userData: Uint8Array.of(i) });
      const seen = new Map<number, unknown>();
      for (let i = 0; i < 10; i++) {
        const [m] = await session.fetch();
        seen.set(m!.header.transactionId, m!.error ? m!.error.code : Array.from((m!.value as HostTensor).data as Float32Array));
        expect(m!.header.userData).toEqual(Uint8Array.of(m!.header.transactionId));
      }
      for (let i = 0; i < 10; i++) expect(seen.get(i)).toEqual(i < 2 ? 'TSGE-E8108' : [3 * (i - 2), 3 * i]);
      // a join's output can reach fetch before its instance has deleted the partner input from
      // input 1's stream (under load: 1 left for a moment), so the gauge is read until it drains
      let stats = await session.refreshStats();
      for (let tries = 0; tries < 50 && Object.values(stats).some((n) => n.queued.some((q) => q > 0)); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        stats = await session.refreshStats();
      }
      expect(stats.double).toMatchObject({ received: 10, processed: 10, failed: 0, emitted: 10, queued: [0] });
      expect(stats.check).toMatchObject({ received: 10, processed: 10, failed: 2, emitted: 10 });
      // the join took 20 inputs on two hosts; the 2 failed upstream transactions count as failed
      expect(stats.sum).toMatchObject({ received: 20, processed: 10, failed: 2, dropped: 0, emitted: 10, queued: [0, 0] });
      const latency = stats.sum?.latencyMs;
      expect(latency !== undefined && latency.p50 >= 0 && latency.p50 <= latency.p99).toBe(true);
      expect(session.stats().sum?.received).toBe(20); // what was gathered last
      await expect(session.feed([f32(1)], { userData: new Uint8Array(999) })).rejects.toMatchObject({ code: 'TSGE-E8112' });
      await expect(session.feed([{ type: 'int32', dims: [1], data: Int32Array.of(1) }])).rejects.toMatchObject({ code: 'TSGE-E8103' });
      await expect(session.fetch(undefined, { timeoutMs: 100 })).rejects.toMatchObject({ code: 'TSGE-E8106' });
    } finally {
      await session.close();
    }
  }, 60000);

  it('runs a multi-function point as instances on two hosts when each function takes one input, refuses it when one aligns several', async () => {
    const multi = (name: string, functions: { name: string; inputs: number[] }[], inputs: number): FlowNode => {
      const node = new FlowNode(inputs, 2, { name });
      node.addProcessPoint(new FunctionPp({ module: fixtures, export: 'multi', inputCount: inputs, outputCount: 2, functions }));
      return node;
    };
    const text = new FlowData();
    const x = new FlowData();
    const [upper, negated] = multi(
      'm',
      [
        { name: 'upper', inputs: [0] },
        { name: 'negate', inputs: [1] },
      ],
      2,
    ).call(text, x);
    const file = await writeDeployment('multi', new FlowGraph([upper!, negated!]), [
      { node: 'm', host: 'a' },
      { node: 'm', host: 'b', instances: 2 },
    ]);
    const session = await deployFlow({ servers: server.url, deployment: file, fetchTimeoutMs: 20000 });
    try {
      for (let i = 0; i < 12; i++) await session.feed([new TextEncoder().encode(`w${i}`), f32(i)], { transactionId: i });
      const texts = new Map<number, string>();
      const values = new Map<number, number>();
      for (let i = 0; i < 12; i++) {
        const [u] = await session.fetch([0]);
        texts.set(u!.header.transactionId, new TextDecoder().decode(u!.value as Uint8Array));
        const [n] = await session.fetch([1]);
        values.set(n!.header.transactionId, (n!.value as HostTensor).data[0] as number);
      }
      for (let i = 0; i < 12; i++) {
        expect(texts.get(i)).toBe(`W${i}`);
        expect(values.get(i)).toBe(-i);
      }
      const stats = await session.refreshStats();
      expect(stats.m).toMatchObject({ received: 24, processed: 24, failed: 0, emitted: 24 });
    } finally {
      await session.close();
    }
    // a function that aligns two inputs beside another function: one instance only, said at deploy time
    const y = new FlowData();
    const [p, q] = multi(
      'aligning',
      [
        { name: 'upper', inputs: [0, 1] },
        { name: 'negate', inputs: [2] },
      ],
      3,
    ).call(text, x, y);
    const refused = await writeDeployment('aligning', new FlowGraph([p!, q!]), [
      { node: 'aligning', host: 'a' },
      { node: 'aligning', host: 'b' },
    ]);
    await expect(deployFlow({ servers: server.url, deployment: refused })).rejects.toMatchObject({
      code: 'TSGE-E8113',
      message: expect.stringMatching(
        /node aligning is placed as 2 instances, but its function upper aligns point inputs 0, 1 .*only one instance can do/,
      ),
    });
  }, 60000);

  it('drops (or reports) keyed-join inputs whose input 0 never comes, after the alignment timeout', async () => {
    for (const onMissing of ['drop', 'error'] as const) {
      const x = new FlowData({ dtype: 'float32', shape: [-1] });
      const [gated] = fn('gate', 'dropOdd', 1).call(x); // odd transactions never reach input 0 of the join
      const [doubled] = fn('double', 'scale', 1, { factor: 2 }).call(x);
      const join = new FlowNode(2, 1, { name: 'join', align: { timeoutMs: 300, onMissing } });
      join.addProcessPoint(new FunctionPp({ module: fixtures, export: 'add', inputCount: 2, outputCount: 1 }));
      const [sum] = join.call(gated!, doubled!);
      const file = await writeDeployment(`leftovers-${onMissing}`, new FlowGraph([sum!]), [
        { node: 'gate', host: 'a' },
        { node: 'double', host: 'b' },
        { node: 'join', host: 'a' },
        { node: 'join', host: 'b' },
      ]);
      const session = await deployFlow({ servers: server.url, deployment: file, fetchTimeoutMs: 20000 });
      try {
        for (let i = 0; i < 8; i++) await session.feed([f32(i)], { transactionId: i });
        const got = new Map<number, number | string>();
        for (let i = 0; i < (onMissing === 'drop' ? 4 : 8); i++) {
          const [m] = await session.fetch();
          got.set(m!.header.transactionId, m!.error ? m!.error.code : ((m!.value as HostTensor).data[0] as number));
        }
        for (let i = 0; i < 8; i++) {
          if (i % 2 === 0) expect(got.get(i)).toBe(3 * i);
          else expect(got.get(i)).toBe(onMissing === 'drop' ? undefined : 'TSGE-E8109');
        }
        // every leftover went from its stream and was counted once, though both hosts sweep
        let stats = await session.refreshStats();
        for (let wait = 0; wait < 50 && (stats.join?.dropped !== 4 || stats.join?.queued[1] !== 0); wait++) {
          await new Promise((r) => setTimeout(r, 100));
          stats = await session.refreshStats();
        }
        expect(stats.join).toMatchObject({ processed: 4, dropped: 4, queued: [0, 0] });
        await expect(session.fetch(undefined, { timeoutMs: 500 })).rejects.toMatchObject({ code: 'TSGE-E8106' });
      } finally {
        await session.close();
      }
    }
  }, 90000);

  it('fetch waits its whole timeout, also beyond a JetStream pull expiry', async () => {
    const x = new FlowData();
    const [y] = fn('late', 'slowIdentity', 1, { delayMs: 1300 }).call(x);
    const file = await writeDeployment('waits', new FlowGraph([y!]), [{ node: 'late', host: 'a' }]);
    const session = await deployFlow({ servers: server.url, deployment: file });
    try {
      await session.feed([f32(7)], { transactionId: 7 });
      const [m] = await session.fetch(undefined, { timeoutMs: 4000 }); // arrives after 1.3 s
      expect(m!.header.transactionId).toBe(7);
      for (const timeoutMs of [1200, 300]) {
        const started = performance.now();
        await expect(session.fetch(undefined, { timeoutMs })).rejects.toMatchObject({ code: 'TSGE-E8106' });
        expect(performance.now() - started).toBeGreaterThanOrEqual(timeoutMs - 5); // never an early empty fetch
      }
      // a message that arrives while nobody fetches waits for the next fetch
      await session.feed([f32(8)], { transactionId: 8 });
      await expect(session.fetch(undefined, { timeoutMs: 200 })).rejects.toMatchObject({ code: 'TSGE-E8106' });
      const [n] = await session.fetch(undefined, { timeoutMs: 4000 });
      expect(n!.header.transactionId).toBe(8);
    } finally {
      await session.close();
    }
  }, 30000);

  it('rejects a bad deployment with coded errors', async () => {
    const x = new FlowData();
    const [y] = fn('only', 'scale', 1).call(x);
    const file = await writeDeployment('bad', new FlowGraph([y!]), [{ node: 'missing', host: 'a' }]);
    await expect(deployFlow({ servers: server.url, deployment: file })).rejects.toMatchObject({
      code: 'TSGE-E8113',
      message: expect.stringMatching(/node only is not placed/),
    });
    writeFileSync(path.join(dir, 'broken.json'), '{ nope');
    await expect(deployFlow({ servers: server.url, deployment: path.join(dir, 'broken.json') })).rejects.toMatchObject({
      code: 'TSGE-E8113',
    });
  });

  it('bounds a full edge: feed rejects or times out while nothing reads it', async () => {
    const x = new FlowData();
    const [y] = fn('slowest', 'slowIdentity', 1, { delayMs: 20000 }, 3).call(x);
    const file = await writeDeployment('full', new FlowGraph([y!]), [{ node: 'slowest', host: 'a' }], {
      maxMessages: 3,
      ackWaitMs: 120000,
    });
    const session = await deployFlow({ servers: server.url, deployment: file });
    try {
      let accepted = 0;
      let error: unknown;
      for (let i = 0; i < 20 && !error; i++) {
        try {
          await session.feed([f32(i)], { whenFull: 'reject' });
          accepted++;
        } catch (e) {
          error = e;
        }
      }
      expect(error).toMatchObject({ code: 'TSGE-E8104' });
      expect(accepted).toBeLessThanOrEqual(3 + 2); // the stream, plus what the agent holds unacknowledged
      await expect(session.feed([f32(1)], { timeoutMs: 50 })).rejects.toMatchObject({ code: 'TSGE-E8105' });
    } finally {
      await session.close();
    }
  }, 60000);

  it('loses no transaction when an agent is killed mid-stream: all fetched exactly once', async () => {
    const N = 200;
    const x = new FlowData();
    const [y] = fn('work', 'slowIdentity', 1, { delayMs: 4 }, 64).call(x);
    const [z] = fn('tag', 'scale', 1, { factor: 1 }, 64).call(y!);
    const file = await writeDeployment(
      'fault',
      new FlowGraph([z!]),
      [
        { node: 'work', host: 'a', instances: 2 },
        { node: 'work', host: 'b', instances: 2 },
        { node: 'tag', host: 'a' },
        { node: 'tag', host: 'b' },
      ],
      { ackWaitMs: 1500, maxDeliver: 10 },
    );
    const session = await deployFlow({ servers: server.url, deployment: file, fetchTimeoutMs: 30000 });
    try {
      const feeding = (async () => {
        for (let i = 0; i < N; i++) {
          await session.feed([f32(i)], { transactionId: i });
        }
      })();
      const counts = new Map<number, number>();
      for (let k = 0; k < N; k++) {
        if (k === 40) await (agents[0] as Agent).stop('SIGKILL');
        const [m] = await session.fetch();
        expect(m!.error).toBeUndefined();
        const id = m!.header.transactionId;
        expect(((m!.value as HostTensor).data as Float32Array)[0]).toBe(id);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      await feeding;
      expect(counts.size).toBe(N);
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
      await expect(session.fetch(undefined, { timeoutMs: 2500 })).rejects.toMatchObject({ code: 'TSGE-E8106' }); // no duplicates later
    } finally {
      await session.close();
    }
  }, 90000);
});
