import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { FlowData, FlowGraph, FlowNode, FunctionPp, GraphPp, type Placement, startFlow } from '../index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const mnist = path.resolve(here, '../../../../../shared/testdata/models/onnx/mnist.onnx');
const fixtures = new URL('../../test/functions.fixture.ts', import.meta.url).href;

function graph(): FlowGraph {
  const x = new FlowData({ dtype: 'float32', shape: [1, 1, 28, 28] });
  const check = new FlowNode(1, 1, { name: 'check' });
  check.addProcessPoint(new FunctionPp({ module: fixtures, export: 'failOnNegative', inputCount: 1, outputCount: 1 }));
  const model = new FlowNode(1, 1, { name: 'mnist' });
  model.addProcessPoint(new GraphPp({ model: mnist, inputCount: 1, outputCount: 1 }));
  const [checked] = check.call(x);
  return new FlowGraph(model.call(checked!));
}

const digit = (i: number): HostTensor => ({
  type: 'float32',
  dims: [1, 1, 28, 28],
  data: new Float32Array(784).map((_, k) => ((k * 31 + i * 7) % 97) / 97 - (i === 3 ? 5 : 0)),
});

async function run(placement: Placement): Promise<Map<number, number[] | string>> {
  const session = await startFlow(graph(), { placement, fetchTimeoutMs: 30000 });
  const got = new Map<number, number[] | string>();
  try {
    for (let i = 0; i < 6; i++) await session.feed([digit(i)], { transactionId: i });
    for (let i = 0; i < 6; i++) {
      const [m] = await session.fetch();
      got.set(m!.header.transactionId, m!.error ? m!.error.code : Array.from((m!.value as HostTensor).data as Float32Array));
    }
  } finally {
    await session.close();
  }
  return got;
}

describe('placements', () => {
  it('workers and child processes give what in-process gives, errors included', async () => {
    const expected = await run('in-process');
    expect(expected.get(3)).toBe('TSGE-E8108'); // its first pixel is negative
    expect([...expected.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const got of [await run('workers'), await run('processes')]) {
      for (const [id, value] of expected) {
        const v = got.get(id);
        if (typeof value === 'string') expect(v).toBe(value);
        else for (const [k, x] of (v as number[]).entries()) expect(Math.abs(x - (value[k] as number))).toBeLessThan(1e-4);
      }
    }
  }, 60000);

  it('a worker that dies mid-transaction fails that transaction with TSGE-E8115 and is restarted, then fails cleanly', async () => {
    const x = new FlowData({ dtype: 'float32', shape: [1] });
    const node = new FlowNode(1, 1, { name: 'fragile' });
    node.addProcessPoint(
      new FunctionPp({ module: fixtures, export: 'crashOn', params: { exitOn: 2, throwOn: 4 }, inputCount: 1, outputCount: 1 }),
    );
    const session = await startFlow(new FlowGraph(node.call(x)), { placement: 'workers', fetchTimeoutMs: 30000 });
    const one = (v: number): HostTensor => ({ type: 'float32', dims: [1], data: Float32Array.of(v) });
    const outcome = async (): Promise<{ id: number; got: string | number }> => {
      const [m] = await session.fetch();
      return {
        id: m!.header.transactionId,
        got: m!.error ? `${m!.error.code} ${m!.error.message}` : ((m!.value as HostTensor).data[0] as number),
      };
    };
    try {
      for (let i = 0; i < 6; i++) await session.feed([one(i)], { transactionId: i });
      const got = new Map<number, string | number>();
      for (let i = 0; i < 6; i++) {
        const { id, got: v } = await outcome();
        got.set(id, v);
      }
      expect(got.get(2)).toMatch(/^TSGE-E8115 .*worker thread running node fragile failed: exited with code 3/);
      expect(got.get(4)).toMatch(/^TSGE-E8115 .*uncaught on 4/);
      for (const i of [0, 1, 3, 5]) expect(got.get(i)).toBe(i); // the restarted worker goes on
      // two restarts are used; a third death takes the last one; the fourth leaves it dead
      await session.feed([one(2)], { transactionId: 10 });
      expect((await outcome()).got).toMatch(/^TSGE-E8115/);
      await session.feed([one(7)], { transactionId: 20 });
      expect(await outcome()).toEqual({ id: 20, got: 7 });
      await session.feed([one(2)], { transactionId: 21 });
      expect((await outcome()).got).toMatch(/^TSGE-E8115/);
      await session.feed([one(8)], { transactionId: 22 });
      expect(await outcome()).toMatchObject({ id: 22, got: expect.stringMatching(/^TSGE-E8115 .*not restarted again after 3 restarts/) });
    } finally {
      await session.close();
    }
  }, 60000);

  it('refuses in-process functions outside the process', async () => {
    const x = new FlowData();
    const node = new FlowNode(1, 1, { name: 'inline' });
    node.addProcessPoint(
      new FunctionPp({ implementation: { specVersion: 'v1', proc: (inputs) => inputs }, inputCount: 1, outputCount: 1 }),
    );
    await expect(startFlow(new FlowGraph(node.call(x)), { placement: 'workers' })).rejects.toMatchObject({ code: 'TSGE-E8116' });
  });

  it('reports a function that fails to load in its worker', async () => {
    const x = new FlowData();
    const node = new FlowNode(1, 1, { name: 'missing' });
    node.addProcessPoint(new FunctionPp({ module: fixtures, export: 'nope', inputCount: 1, outputCount: 1 }));
    await expect(startFlow(new FlowGraph(node.call(x)), { placement: 'workers' })).rejects.toMatchObject({ code: 'TSGE-E8110' });
  });
});
