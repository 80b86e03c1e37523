import type { HostTensor } from '@tsge/metadef';
import { GraphBuilder, TsgeError, createTensorDesc } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { openModel } from './open-model.js';
import type { LoadModelOptions, TraceEvent } from './options.js';
import { assembleModel } from './testing/assemble-model.fixture.js';

/** y = Softmax(Relu(x) + b) over x of shape [n, 4] (n known only at run time), ONNX ops and kernels. */
function dynamicModel() {
  const b = new GraphBuilder('dynamic-rows');
  const x = b.input('x', 'float32', ['n', 4]);
  const bias = b.constant('bias', new Float32Array([0, 1, 2, 3]), [4]);
  const desc = createTensorDesc('float32', ['n', 4]);
  const relu = b.op('Relu', [x], { name: 'relu', outputDescs: [desc] });
  const sum = b.op('Add', [relu, bias], { name: 'add', outputDescs: [desc] });
  b.output(b.op('Softmax', [sum], { name: 'softmax', outputDescs: [desc] }), 'y');
  return assembleModel(b.build(), { dynamicNodes: ['relu', 'add', 'softmax'] });
}

function expected(x: Float32Array): number[] {
  const out: number[] = [];
  for (let r = 0; r < x.length / 4; r++) {
    const row = [0, 1, 2, 3].map((j) => Math.max(0, x[r * 4 + j] as number) + j);
    const max = Math.max(...row);
    const e = row.map((v) => Math.exp(v - max));
    const s = e.reduce((a, c) => a + c, 0);
    out.push(...e.map((v) => v / s));
  }
  return out;
}

const load = (options: LoadModelOptions) => openModel(dynamicModel(), { startWorkers: 'eager', ...options });

describe('dynamic-shape models on the worker pool', () => {
  it('runs every kernel of a dynamic-shape model on the workers, with run-time shapes', async () => {
    const executor = await load({ threads: 2, profile: true });
    expect(executor.mode).toBe('sink');
    expect(executor.threads).toBe(2);
    for (const n of [3, 1, 5]) {
      const x = Float32Array.from({ length: n * 4 }, (_, i) => (i % 7) - 3);
      const y = (await executor.run({ x: { type: 'float32', dims: [n, 4], data: x } })).y as HostTensor;
      expect(y.dims).toEqual([n, 4]);
      for (const [i, v] of Array.from(y.data as Float32Array).entries()) expect(v).toBeCloseTo(expected(x)[i] as number, 5);
    }
    const tasks = executor.profile().traceEvents.filter((e): e is TraceEvent => e.ph === 'X');
    expect(tasks.map((t) => t.name).sort()).toEqual(['add', 'add', 'add', 'relu', 'relu', 'relu', 'softmax', 'softmax', 'softmax']);
    // thread 0 is the calling thread; workers are 1..threads
    for (const t of tasks) expect(t.tid).toBeGreaterThanOrEqual(1);
    await executor.release();
  });

  it('keeps host mode as a choice, with the same outputs on the calling thread', async () => {
    const executor = await load({ threads: 2, mode: 'host', profile: true });
    expect(executor.mode).toBe('host');
    const x = Float32Array.from({ length: 8 }, (_, i) => i - 4);
    const y = (await executor.run({ x: { type: 'float32', dims: [2, 4], data: x } })).y as HostTensor;
    for (const [i, v] of Array.from(y.data as Float32Array).entries()) expect(v).toBeCloseTo(expected(x)[i] as number, 5);
    const tids = executor
      .profile()
      .traceEvents.filter((e) => e.ph === 'X')
      .map((e) => e.tid);
    expect(new Set(tids)).toEqual(new Set([0]));
    await executor.release();
  });

  it('bounds the run-time arena of each worker: a run that needs more is TSGE-E6210 naming the node, and the model stays usable', async () => {
    // 4 KiB holds the tensors of 64 rows (1 KiB each); 200 rows fit the input but not relu's output;
    // 1024 rows not even the input
    const executor = await load({ threads: 2, runtimeArenaBytes: 4096 });
    const feed = (n: number) => ({ x: { type: 'float32', dims: [n, 4], data: new Float32Array(n * 4).fill(1) } });
    for (const [n, node] of [
      [200, 'relu'],
      [1024, 'x'],
    ] as const) {
      const error = await executor.run(feed(n)).catch((e: unknown) => e);
      expect(TsgeError.isInstance(error) && error.code).toBe('TSGE-E6210');
      expect((error as Error).message).toMatch(
        new RegExp(`node ${node}: output 0 needs \\d+ bytes .*run-time arena of worker \\d .*4096 bytes`),
      );
    }
    const y = (await executor.run(feed(64))).y as HostTensor;
    expect(Array.from((y.data as Float32Array).slice(0, 4)).map((v) => Number(v.toFixed(4)))).toEqual(
      expected(new Float32Array(4).fill(1)).map((v) => Number(v.toFixed(4))),
    );
    await executor.release();
    const bad = await load({ threads: 2, runtimeArenaBytes: -1 }).catch((e: unknown) => e);
    expect(TsgeError.isInstance(bad) && bad.code).toBe('TSGE-E7002');
  });

  it('frees run-time tensors at their last use: a run whose tensors together exceed the arena fits', async () => {
    // 100 rows: each tensor 1600 bytes; x, relu, add and softmax together 6400 > 4096, but x is
    // freed once relu ran and relu once add ran, so at most two are alive
    for (const mode of ['sink', 'host'] as const) {
      const executor = await load({ threads: 2, mode, runtimeArenaBytes: 4096 });
      for (let run = 0; run < 2; run++) {
        const x = Float32Array.from({ length: 400 }, (_, i) => (i % 5) - 2);
        const y = (await executor.run({ x: { type: 'float32', dims: [100, 4], data: x } })).y as HostTensor;
        expect(y.dims).toEqual([100, 4]);
        for (const [i, v] of Array.from(y.data as Float32Array).entries()) expect(v).toBeCloseTo(expected(x)[i] as number, 5);
      }
      await executor.release();
    }
  });

  it('infers again when a run-time shape input has other values, not only other dims', async () => {
    const b = new GraphBuilder('reshape-by-input');
    const x = b.input('x', 'float32', [6]);
    const shape = b.input('shape', 'int64', [2]);
    b.output(b.op('Reshape', [x, shape], { name: 'reshape', outputDescs: [createTensorDesc('float32', [-1, -1])] }), 'y');
    const executor = await openModel(assembleModel(b.build(), { dynamicNodes: ['reshape'] }), { startWorkers: 'eager', threads: 2 });
    const data = Float32Array.from({ length: 6 }, (_, i) => i);
    for (const dims of [
      [2, 3],
      [3, 2],
      [2, 3],
      [6, 1],
    ]) {
      const feeds = {
        x: { type: 'float32', dims: [6], data },
        shape: { type: 'int64', dims: [2], data: BigInt64Array.from(dims.map(BigInt)) },
      };
      const y = (await executor.run(feeds as never)).y as HostTensor;
      expect(y.dims).toEqual(dims);
      expect(Array.from(y.data as Float32Array)).toEqual(Array.from(data));
    }
    await executor.release();
  });
});
