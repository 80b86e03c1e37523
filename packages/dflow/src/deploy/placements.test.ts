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
