import type { HostTensor } from '@tsge/metadef';
import { GraphBuilder, createTensorDesc } from '@tsge/metadef';
import { releaseSpareThreads, spareThreadCount } from '@tsge/runtime';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { openModel } from './open-model.js';
import { prestartWorkers } from './prestart.js';
import type { Executor, TraceEvent } from './options.js';
import { assembleModel } from './testing/assemble-model.fixture.js';
import { TEST_DOMAIN } from './testing/test-kernels.fixture.js';

const kernelModules = [new URL('./testing/test-kernels.fixture.ts', import.meta.url)];
const open: Executor[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
  await releaseSpareThreads();
});

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** y = relu(x + bias), n×64, on two workers. */
async function load(bias: number, profile = false, n = 64): Promise<Executor> {
  const b = new GraphBuilder(`bias${bias}`);
  const desc = createTensorDesc('float32', [n, 64]);
  const x = b.input('x', 'float32', [n, 64]);
  const w = b.constant('w', new Float32Array(n * 64).fill(bias), [n, 64]);
  const y = b.op('Add', [x, w], { name: 'add', domain: TEST_DOMAIN, outputDescs: [desc] });
  b.output(b.op('Relu', [y], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [desc] }), 'y');
  const executor = await openModel(assembleModel(b.build()), { kernelModules, threads: 2, smallModelBytes: 0, profile });
  open.push(executor);
  return executor;
}

const x = new Float32Array(64 * 64).map((_, i) => (i % 7) - 3);
async function check(executor: Executor, bias: number): Promise<void> {
  const { y } = await executor.run({ x: { type: 'float32', dims: [64, 64], data: x } });
  const data = (y as HostTensor).data as Float32Array;
  expect(Array.from(data)).toEqual(Array.from(x, (v) => Math.max(0, v + bias)));
}

describe('worker threads across models', () => {
  it('models loaded one after another and side by side run right', async () => {
    const a = await load(0.5);
    await a.whenReady();
    await check(a, 0.5);
    await a.release();
    const b = await load(2);
    await check(b, 2); // at once: on the calling thread or on threads kept from a
    await b.whenReady();
    await check(b, 2);
    const c = await load(-1);
    await Promise.all([check(b, 2), check(c, -1), c.whenReady().then(() => check(c, -1))]);
    await Promise.all([b.release(), c.release()]);
  });

  // the sink worker's `teardown` makes its threads reusable (worker/spare-threads.ts in @tsge/runtime)
  it('a released model’s threads run the next model’s first run', async () => {
    const a = await load(0.5);
    await a.whenReady();
    await check(a, 0.5);
    const workers = a.threads; // one stream without tiles: one worker
    await a.release();
    expect(spareThreadCount()).toBe(workers);
    const b = await load(2, true);
    expect(spareThreadCount()).toBe(0);
    await check(b, 2);
    // the first run waited for the kept threads' setup instead of running on the calling thread
    const threads = b
      .profile()
      .traceEvents.filter((e): e is TraceEvent => e.ph === 'X')
      .map((e) => e.tid);
    expect(threads.length).toBeGreaterThan(0);
    expect(threads.every((tid) => tid > 0)).toBe(true);
    await b.release();
    expect(spareThreadCount()).toBe(workers);
  });

  it('threads started before any model run the first model’s first run', async () => {
    expect(await prestartWorkers(2)).toBe(2);
    // counted, not started again
    expect(await prestartWorkers(2)).toBe(2);
    const a = await load(3, true);
    expect(spareThreadCount()).toBe(2 - a.threads);
    // the load waited for their setup and the warm-up: nothing is left to wait for
    const state = await Promise.race([
      a.whenReady().then(() => 'ready'),
      new Promise<string>((resolve) => setImmediate(() => resolve('pending'))),
    ]);
    expect(state).toBe('ready');
    await check(a, 3);
    const threads = a
      .profile()
      .traceEvents.filter((e): e is TraceEvent => e.ph === 'X')
      .map((e) => e.tid);
    expect(threads.length).toBeGreaterThan(0);
    expect(threads.every((tid) => tid > 0)).toBe(true);
    await expect(prestartWorkers(0)).rejects.toThrow(/TSGE-E7002/);
  });

  it('threads kept across models do not keep their memories', async () => {
    // each model holds ~20 MB of device memory (4 MiB of weights, two 8 MiB arenas)
    const n = 16384;
    const x = { x: { type: 'float32', dims: [n, 64], data: new Float32Array(n * 64) } } as const;
    const cycles = async (count: number): Promise<number> => {
      for (let i = 0; i < count; i++) {
        const e = await load(1, false, n);
        await e.whenReady();
        await e.run(x);
        await e.release();
        open.length = 0;
      }
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return process.memoryUsage().rss;
    };
    const base = await cycles(3);
    expect(spareThreadCount()).toBeGreaterThan(0);
    const after = await cycles(12);
    console.log(`rss ${(base / 1e6).toFixed(0)} → ${(after / 1e6).toFixed(0)} MB after 12 more models on kept threads`);
    // kept memories would add ~240 MB
    expect(after).toBeLessThan(base + 100e6);
  });
});
