import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { HostTensor } from '@tsge/metadef';
import { GraphBuilder, createTensorDesc } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { openModel } from './open-model.js';
import { assembleModel } from './testing/assemble-model.fixture.js';
import { TEST_DOMAIN } from './testing/test-kernels.fixture.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const kernelModules = [new URL('./testing/test-kernels.fixture.ts', import.meta.url)];

function model() {
  const b = new GraphBuilder('cycle');
  const desc = createTensorDesc('float32', [64, 64]);
  const x = b.input('x', 'float32', [64, 64]);
  const w = b.constant('w', new Float32Array(64 * 64).fill(0.5), [64, 64]);
  const y = b.op('Add', [x, w], { name: 'add', domain: TEST_DOMAIN, outputDescs: [desc] });
  b.output(b.op('Relu', [y], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [desc] }), 'y');
  return assembleModel(b.build());
}

async function cycle(threads: number): Promise<void> {
  // a model this small would run on the calling thread: smallModelBytes 0 makes it start its workers
  const workers = threads > 1;
  const executor = await openModel(model(), { kernelModules, threads, ...(workers ? { smallModelBytes: 0, profile: true } : {}) });
  const x = new Float32Array(64 * 64).fill(-1);
  x[7] = 2;
  await executor.whenReady();
  const { y } = await executor.run({ x: { type: 'float32', dims: [64, 64], data: x } });
  const data = (y as HostTensor).data as Float32Array;
  if (data[7] !== 2.5 || data[0] !== 0) throw new Error('wrong result');
  if (workers && !executor.profile().traceEvents.some((e) => e.ph === 'X' && e.tid > 0)) throw new Error('the run did not go to a worker');
  await executor.release();
}

async function memoryAfter(cycles: number, threads: number): Promise<{ heap: number; rss: number }> {
  for (let i = 0; i < cycles; i++) await cycle(threads);
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

describe('create/run/release cycles', () => {
  it('100 cycles on the calling thread do not grow heap or RSS beyond 10%', async () => {
    const base = await memoryAfter(200, 1); // warm-up: JIT code and allocator pools settle first
    const after = await memoryAfter(100, 1);
    console.log(
      `calling thread: heap ${(base.heap / 1e6).toFixed(1)} → ${(after.heap / 1e6).toFixed(1)} MB, rss ${(base.rss / 1e6).toFixed(1)} → ${(after.rss / 1e6).toFixed(1)} MB after 100 cycles`,
    );
    expect(after.heap).toBeLessThan(base.heap * 1.1);
    expect(after.rss).toBeLessThan(base.rss * 1.1);
  });

  // each cycle starts two workers (about a second from TypeScript sources), so fewer cycles here;
  // `CYCLES=100` runs the full loop
  const workerCycles = Number(process.env.CYCLES ?? 20);
  it(`${workerCycles} cycles with two workers do not grow heap or RSS beyond 10%`, { timeout: 600_000 }, async () => {
    const base = await memoryAfter(5, 2);
    const after = await memoryAfter(workerCycles, 2);
    console.log(
      `workers: heap ${(base.heap / 1e6).toFixed(1)} → ${(after.heap / 1e6).toFixed(1)} MB, rss ${(base.rss / 1e6).toFixed(1)} → ${(after.rss / 1e6).toFixed(1)} MB after ${workerCycles} cycles`,
    );
    expect(after.heap).toBeLessThan(base.heap * 1.1);
    expect(after.rss).toBeLessThan(base.rss * 1.1);
  });
});
