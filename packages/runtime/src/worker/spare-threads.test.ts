import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type CpuDevice, createCpuDevice } from '../cpu-device.js';
import { releaseSpareThreads, spareThreadCount } from './spare-threads.js';
import { prestartWorkers } from './worker-pool.js';

const REUSABLE = new URL('./reusable.fixture.ts', import.meta.url);
const COUNTER = new URL('./counter.fixture.ts', import.meta.url);

/** A 2-thread device running the reusable fixture; `stop()` ends the workers' loops. */
function start(data: Record<string, unknown> = {}) {
  const device: CpuDevice = createCpuDevice({ threads: 2, maximumBytes: 1 << 20 });
  const word = device.allocate(64) / 4;
  const stopWord = device.allocate(8) / 4;
  const pool = device.startWorkers(REUSABLE, { word, stop: stopWord, ...data });
  const words = new Int32Array(device.memory.buffer);
  const worker = (index: number) => ({
    threadId: words[word + 3 * index],
    setups: words[word + 3 * index + 1],
    teardowns: words[word + 3 * index + 2],
  });
  const stop = (): void => {
    Atomics.store(words, stopWord, 1);
    Atomics.notify(words, stopWord);
  };
  return { device, pool, worker, stop };
}

describe('spare worker threads', () => {
  afterEach(() => releaseSpareThreads());

  it('hands a released pool’s threads to the next pool of the same handler, torn down', async () => {
    const a = start();
    expect(a.pool.booted).toBe(false);
    await a.pool.ready;
    const first = [a.worker(0), a.worker(1)];
    expect(first.map((w) => w.setups)).toEqual([1, 1]);
    a.stop();
    await a.device.release();
    expect(spareThreadCount()).toBe(2);

    const b = start();
    expect(b.pool.booted).toBe(true);
    expect(spareThreadCount()).toBe(0);
    await b.pool.ready;
    const second = [b.worker(0), b.worker(1)];
    expect(new Set(second.map((w) => w.threadId))).toEqual(new Set(first.map((w) => w.threadId)));
    // the same module instance: its second setup, after one teardown
    expect(second.map((w) => [w.setups, w.teardowns])).toEqual([
      [2, 1],
      [2, 1],
    ]);
    b.stop();
    await b.device.release();
  });

  it('gives concurrent pools their own threads', async () => {
    const a = start();
    await a.pool.ready;
    a.stop();
    await a.device.release();
    const b = start();
    const c = start();
    expect([b.pool.booted, c.pool.booted]).toEqual([true, false]);
    await Promise.all([b.pool.ready, c.pool.ready]);
    const ids = [b.worker(0), b.worker(1), c.worker(0), c.worker(1)].map((w) => w.threadId);
    expect(new Set(ids).size).toBe(4);
    b.stop();
    c.stop();
    await Promise.all([b.device.release(), c.device.release()]);
    // no more spares than one pool asked for
    expect(spareThreadCount()).toBe(2);
  });

  it('terminates threads whose handler has no teardown, failed or did not come back', async () => {
    const counter = createCpuDevice({ threads: 2, maximumBytes: 1 << 20 });
    const word = counter.allocate(8) / 4;
    const pool = counter.startWorkers(COUNTER, { word });
    await pool.ready;
    const words = new Int32Array(counter.memory.buffer);
    Atomics.store(words, word + 1, 1);
    Atomics.notify(words, word + 1);
    await counter.release();
    expect(spareThreadCount()).toBe(0);

    const failing = start({ failSetup: true });
    await expect(failing.pool.ready).rejects.toThrow(/setup refused/);
    await failing.device.release();
    expect(spareThreadCount()).toBe(0);

    const leaving = start({ exitInTeardown: true });
    await leaving.pool.ready;
    leaving.stop();
    await leaving.device.release();
    expect(spareThreadCount()).toBe(0);
    // the next pool boots threads of its own and runs
    const next = start();
    expect(next.pool.booted).toBe(false);
    await next.pool.ready;
    expect(next.worker(0).setups).toBe(1);
    next.stop();
    await next.device.release();
  });

  it('threads started ahead of any pool are taken by the first one, handler imported once', async () => {
    expect(await prestartWorkers({ size: 2, handler: REUSABLE })).toBe(2);
    expect(await prestartWorkers({ size: 2, handler: REUSABLE })).toBe(2);
    const a = start();
    expect(a.pool.booted).toBe(true);
    expect(spareThreadCount()).toBe(0);
    await a.pool.ready;
    // the module prestartWorkers imported: its first setup
    expect([a.worker(0), a.worker(1)].map((w) => [w.setups, w.teardowns])).toEqual([
      [1, 0],
      [1, 0],
    ]);
    a.stop();
    await a.device.release();
    expect(spareThreadCount()).toBe(2);
  });

  it('a prestart whose handler cannot be imported fails and keeps no thread', async () => {
    await expect(prestartWorkers({ size: 1, handler: new URL('./no-such-handler.mjs', import.meta.url) })).rejects.toThrow();
    expect(spareThreadCount()).toBe(0);
  });

  it('a terminated pool’s threads are not kept', async () => {
    const a = start();
    await a.pool.ready;
    await a.pool.terminate();
    await a.device.release();
    expect(spareThreadCount()).toBe(0);
  });

  it('does not keep the process alive', () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
    const script = fileURLToPath(new URL('./spare-exit.fixture.ts', import.meta.url));
    const child = spawnSync(process.execPath, ['--conditions=@tsge/source', '--import', 'tsx', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('spares 2');
    expect(child.status).toBe(0);
  });
});
