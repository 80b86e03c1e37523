import { describe, expect, it } from 'vitest';
import { createCpuDevice } from './cpu-device.js';

describe('cpu device', () => {
  it('runs on the calling thread with threads: 1 (no shared memory)', async () => {
    const device = createCpuDevice({ threads: 1 });
    expect(device.shared).toBe(false);
    expect(device.threadCount).toBe(1);
    const offset = device.allocate(16);
    const view = device.view('float32', offset, 4) as Float32Array;
    view.set([1, 2, 3, 4]);
    expect(Array.from(device.view('float32', offset, 4) as Float32Array)).toEqual([1, 2, 3, 4]);
    await device.release();
  });

  it('compiles a kernel module once', async () => {
    const device = createCpuDevice({ threads: 1 });
    const empty = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
    const a = await device.loadKernelModule(empty);
    const b = await device.loadKernelModule(new Uint8Array(empty));
    expect(a).toBe(b);
    await expect(device.loadKernelModule(new Uint8Array([1, 2, 3]))).rejects.toThrow();
    await device.release();
  });

  it('starts workers that share the memory', async () => {
    const device = createCpuDevice({ threads: 2, maximumBytes: 1 << 20 });
    expect(device.shared).toBe(true);
    const word = device.allocate(8) / 4;
    const pool = device.startWorkers(new URL('./worker/counter.fixture.ts', import.meta.url), { word });
    await pool.ready;
    const words = new Int32Array(device.memory.buffer);
    expect(Atomics.load(words, word)).toBe(3);
    const seen = new Promise<unknown[]>((resolve) => {
      const got: unknown[] = [];
      pool.onMessage((_, message) => {
        got.push(message);
        if (got.length === 2) resolve(got);
      });
    });
    Atomics.store(words, word + 1, 1);
    Atomics.notify(words, word + 1);
    expect((await seen).map((m) => (m as { seen: number }).seen)).toEqual([3, 3]);
    await device.release();
  });

  it('reports a handler that fails to load', async () => {
    const device = createCpuDevice({ threads: 2, maximumBytes: 1 << 20 });
    const pool = device.startWorkers(new URL('./worker/missing.fixture.ts', import.meta.url), {});
    await expect(pool.ready).rejects.toThrow(/failed to start/);
    await device.release();
  });
});
