// Graphs built in code, compiled by @tsge/compiler, run by @tsge/executor: sink vs host mode, two
// streams vs one, threads, gears and run-time shapes all give the outputs a plain-JS reference gives.
import type { Graph, HostTensor, RuntimeValue } from '@tsge/metadef';
import { GraphBuilder, TsgeError, attr } from '@tsge/metadef';
import { compile } from '@tsge/compiler';
import { type Executor, loadModel } from '@tsge/executor';
import { readOm } from '@tsge/om';
import { createDefaultOpRegistry } from '@tsge/ops';
import { afterEach, describe, expect, it } from 'vitest';

const ops = createDefaultOpRegistry();
const open: Executor[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
});
async function load(om: Uint8Array, options: Parameters<typeof loadModel>[1]): Promise<Executor> {
  // these graphs are tiny: use the workers anyway (they would otherwise run on the calling thread)
  const executor = await loadModel(om, { smallModelBytes: 0, ...options });
  open.push(executor);
  return executor;
}

const W1 = Float32Array.from({ length: 16 }, (_, i) => (i % 5) - 2);
const W2 = Float32Array.from({ length: 16 }, (_, i) => ((i % 3) - 1) * 0.5);

/** y = Relu(x·W1) + Sigmoid(x·W2) (two independent branches), p = Softmax(y). */
function mlp(batch: number | string): Graph {
  const b = new GraphBuilder('mlp', { ops });
  const x = b.input('x', 'float32', [batch, 4]);
  const a = b.op('Relu', [b.op('MatMul', [x, b.constant('w1', W1, [4, 4])])]);
  const c = b.op('Sigmoid', [b.op('MatMul', [x, b.constant('w2', W2, [4, 4])])]);
  const y = b.op('Add', [a, c]);
  b.output(y, 'y');
  b.output(b.op('Softmax', [y], { attrs: { axis: attr.int(-1) } }), 'p');
  return b.build();
}

function reference(x: Float32Array): { y: Float32Array; p: Float32Array } {
  const rows = x.length / 4;
  const y = new Float32Array(x.length);
  const p = new Float32Array(x.length);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < 4; j++) {
      let s1 = 0;
      let s2 = 0;
      for (let k = 0; k < 4; k++) {
        s1 += (x[r * 4 + k] as number) * (W1[k * 4 + j] as number);
        s2 += (x[r * 4 + k] as number) * (W2[k * 4 + j] as number);
      }
      y[r * 4 + j] = Math.max(0, s1) + 1 / (1 + Math.exp(-s2));
    }
    const row = y.subarray(r * 4, r * 4 + 4);
    const max = Math.max(...row);
    const sum = row.reduce((s, v) => s + Math.exp(v - max), 0);
    for (let j = 0; j < 4; j++) p[r * 4 + j] = Math.exp((row[j] as number) - max) / sum;
  }
  return { y, p };
}

const data = (v: RuntimeValue | undefined): number[] => Array.from((v as HostTensor).data as Float32Array);
const close = (actual: RuntimeValue | undefined, expected: Float32Array): void => {
  const got = data(actual);
  expect(got).toHaveLength(expected.length);
  got.forEach((v, i) => {
    expect(v).toBeCloseTo(expected[i] as number, 5);
  });
};
const X = new Float32Array([1, 2, 3, 4, -1, 0, 1, 2]);
/** Keeps the two MatMul branches independent (see the first test). */
const BRANCHES = { optimizationSwitch: { 'auto-fusion': false } } as const;

describe('compile → run', () => {
  it('sink mode on two workers, on the calling thread and host mode agree with the reference', async () => {
    // without automatic fusion, which would make the Add + Relu + Sigmoid join the second MatMul's
    // epilogue and leave one chain (no second stream)
    const { om, summary } = await compile(mlp(2), { streamLimit: 2, ...BRANCHES });
    expect(summary.streams).toBe(2);
    expect(summary.events).toBeGreaterThan(0);
    const want = reference(X);
    const results: Record<string, RuntimeValue>[] = [];
    for (const options of [{ threads: 2 }, { threads: 1 }, { threads: 2, mode: 'host' as const }]) {
      const executor = await load(om, options);
      const r = await executor.run({ x: { type: 'float32', dims: [2, 4], data: X } });
      close(r.y, want.y);
      close(r.p, want.p);
      results.push(r);
    }
    expect(data(results[0]?.y)).toEqual(data(results[1]?.y));
    expect(data(results[0]?.y)).toEqual(data(results[2]?.y));
    expect(data(results[0]?.p)).toEqual(data(results[2]?.p));
  });

  it('a single-stream build gives the same outputs as the two-stream build', async () => {
    const two = await load((await compile(mlp(2), { streamLimit: 2, ...BRANCHES })).om, { threads: 2 });
    const oneBuild = await compile(mlp(2), { enableSingleStream: true, ...BRANCHES });
    expect(oneBuild.summary.streams).toBe(1);
    const one = await load(oneBuild.om, { threads: 2 });
    const feeds = { x: { type: 'float32', dims: [2, 4], data: X } };
    const [r2, r1] = [await two.run(feeds), await one.run(feeds)];
    expect(data(r2.y)).toEqual(data(r1.y));
    expect(data(r2.p)).toEqual(data(r1.p));
  });

  it('runs the gear that matches the batch, and rejects other batches with TSGE-E6008', async () => {
    const { om, summary } = await compile(mlp('N'), { dynamicBatchSizes: [1, 3] });
    expect(summary.gears).toBe(2);
    const executor = await load(om, { threads: 2 });
    expect(executor.mode).toBe('sink');
    const x3 = new Float32Array([1, 2, 3, 4, -1, 0, 1, 2, 0.5, 0.5, -2, 1]);
    close((await executor.run({ x: { type: 'float32', dims: [3, 4], data: x3 } })).y, reference(x3).y);
    close((await executor.run({ x: { type: 'float32', dims: [1, 4], data: X.subarray(0, 4) } })).p, reference(X.subarray(0, 4)).p);
    const error = await executor.run({ x: { type: 'float32', dims: [2, 4], data: X } }).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E6008');
  });

  it('warms the gear that LoadModelOptions.warmUp shapes select, and refuses shapes no gear takes', async () => {
    const { om } = await compile(mlp('N'), { dynamicBatchSizes: [1, 3] });
    const executor = await load(om, { threads: 1, warmUp: { shapes: { x: [3, 4] } } });
    const x3 = new Float32Array([1, 2, 3, 4, -1, 0, 1, 2, 0.5, 0.5, -2, 1]);
    close((await executor.run({ x: { type: 'float32', dims: [3, 4], data: x3 } })).y, reference(x3).y);
    const error = await load(om, { threads: 1, warmUp: { shapes: { x: [2, 4] } } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TSGE-E7002', message: expect.stringContaining('LoadModelOptions.warmUp.shapes') });
    expect((error as Error).message).toContain('no plan of the model takes these shapes');
  });

  it('runs a model with a symbolic batch in host mode with run-time shapes', async () => {
    const { om, summary } = await compile(mlp('N'));
    expect(summary.dynamic).toBe(true);
    const executor = await load(om, { threads: 2, mode: 'host' });
    expect(executor.mode).toBe('host');
    for (const rows of [1, 2, 5]) {
      const x = Float32Array.from({ length: rows * 4 }, (_, i) => Math.sin(i) * 3);
      const r = await executor.run({ x: { type: 'float32', dims: [rows, 4], data: x } });
      expect((r.y as HostTensor).dims).toEqual([rows, 4]);
      close(r.y, reference(x).y);
      close(r.p, reference(x).p);
    }
  });

  it('runs O3 fused ops (tsge::FusedGemm) with the default kernels of @tsge/ops', async () => {
    const b = new GraphBuilder('fused', { ops });
    const x = b.input('x', 'float32', [2, 4]);
    const bias = new Float32Array([0.5, -8, 1, -0.25]);
    b.output(b.op('Relu', [b.op('Gemm', [x, b.constant('w', W1, [4, 4]), b.constant('bias', bias, [4])])]), 'y');
    const { om, summary } = await compile(b.build(), { optLevel: 3 });
    expect(summary.fusions['fused-gemm-activation']).toBeGreaterThan(0);
    const want = reference(X).y.map(() => 0);
    for (let r = 0; r < 2; r++) {
      for (let j = 0; j < 4; j++) {
        let s = bias[j] as number;
        for (let k = 0; k < 4; k++) s += (X[r * 4 + k] as number) * (W1[k * 4 + j] as number);
        want[r * 4 + j] = Math.max(0, s);
      }
    }
    for (const threads of [2, 1]) {
      const executor = await load(om, { threads });
      close((await executor.run({ x: { type: 'float32', dims: [2, 4], data: X } })).y, want);
    }
  });

  it('kernel tasks carry their attributes, so loading never decodes MODEL_DEF for static plans', async () => {
    const { om, model } = await compile(mlp(2), { optLevel: 3 });
    const tasks = model.taskInfo.plans.flatMap((p) => p.streams.flatMap((s) => s.tasks)).filter((t) => t.kind === 'kernel');
    expect(tasks.length).toBeGreaterThan(0);
    expect(tasks.every((t) => t.kind === 'kernel' && t.attrs !== undefined && t.opset !== undefined)).toBe(true);
    const lazy = readOm(om, { lazyGraph: true }).model;
    // the graph is a getter that has not run; reading it decodes the same graph as an eager read
    expect(Object.getOwnPropertyDescriptor(lazy, 'graph')?.get).toBeTypeOf('function');
    expect(lazy?.graph.nodes.map((n) => n.name)).toEqual(readOm(om).model?.graph.nodes.map((n) => n.name));
    // and the executor gives the reference outputs from the task attributes alone
    const want = reference(X);
    for (const options of [{ threads: 1 }, { threads: 2 }, { threads: 1, mode: 'host' as const }]) {
      const r = await (await load(om, options)).run({ x: { type: 'float32', dims: [2, 4], data: X } });
      close(r.y, want.y);
    }
  });

  it('checks inputs of a compiled model before running', async () => {
    const executor = await load((await compile(mlp(2))).om, { threads: 1 });
    const error = await executor.run({ x: { type: 'float32', dims: [2, 5], data: new Float32Array(10) } }).catch((e: unknown) => e);
    expect(TsgeError.isInstance(error)).toBe(true);
    expect((error as TsgeError).code).toBe('TSGE-E6004');
  });
});
