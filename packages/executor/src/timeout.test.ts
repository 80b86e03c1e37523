import type { HostTensor, TsgeError } from '@tsge/metadef';
import { GraphBuilder, createTensorDesc } from '@tsge/metadef';
import { afterEach, describe, expect, it } from 'vitest';
import { openModel } from './open-model.js';
import type { Executor, LoadModelOptions } from './options.js';
import { assembleModel } from './testing/assemble-model.fixture.js';
import { TEST_DOMAIN } from './testing/test-kernels.fixture.js';

const kernelModules = [new URL('./testing/test-kernels.fixture.ts', import.meta.url)];
const open: Executor[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
});

/** x → SpinFor × `length` → y: each node spins x[0] rounds, so x = [1e12] never ends and x = [3] is instant. */
function spinChain(length: number) {
  const b = new GraphBuilder('spin-chain');
  const desc = createTensorDesc('float32', [1]);
  let value = b.input('x', 'float32', [1]);
  for (let i = 0; i < length; i++) value = b.op('SpinFor', [value], { name: `spin${i}`, domain: TEST_DOMAIN, outputDescs: [desc] });
  b.output(
    b.op('Add', [value, b.constant('one', new Float32Array([1]), [1])], { name: 'add', domain: TEST_DOMAIN, outputDescs: [desc] }),
    'y',
  );
  return assembleModel(b.build());
}

async function load(length: number, options: LoadModelOptions): Promise<Executor> {
  const executor = await openModel(spinChain(length), { kernelModules, smallModelBytes: 0, ...options });
  open.push(executor);
  return executor;
}
const feed = (rounds: number) => ({ x: { type: 'float32' as const, dims: [1], data: new Float32Array([rounds]) } });
const y = (result: Record<string, unknown>): number => ((result.y as HostTensor).data as Float32Array)[0] as number;

describe('RunOptions.timeoutMs', () => {
  it('stops a run stuck in a worker, replaces the workers and keeps the model usable', async () => {
    const executor = await load(1, { threads: 2, startWorkers: 'eager' });
    // one stream, so one worker; were the run on the calling thread, the stuck run would block this test
    expect(executor.mode).toBe('sink');
    expect(y(await executor.run(feed(3), { timeoutMs: 60_000 }))).toBe(4);
    // 1e12 rounds in one kernel: minutes of work a worker cannot be interrupted in
    const error = (await executor.run(feed(1e12), { timeoutMs: 200 }).catch((e: unknown) => e)) as TsgeError;
    expect(error.code, String(error)).toBe('TSGE-E6080');
    expect(error.message).toContain('200 ms');
    // at once on the calling thread, and again once the new workers are up
    expect(y(await executor.run(feed(5)))).toBe(6);
    await executor.whenReady();
    for (let i = 0; i < 3; i++) expect(y(await executor.run(feed(i)))).toBe(i + 1);
    // a second stuck run is stopped the same way
    const again = (await executor.run(feed(1e12), { timeoutMs: 100 }).catch((e: unknown) => e)) as TsgeError;
    expect(again.code).toBe('TSGE-E6080');
    await executor.whenReady();
    expect(y(await executor.run(feed(7)))).toBe(8);
  });

  it('stops a long run on the calling thread at the next task', async () => {
    // 200 nodes of 2e7 rounds each: many seconds in all, each node a few tens of ms
    const executor = await load(200, { threads: 1 });
    const error = (await executor.run(feed(2e7), { timeoutMs: 100 }).catch((e: unknown) => e)) as TsgeError;
    expect(error.code, String(error)).toBe('TSGE-E6080');
    expect(error.message).toMatch(/before node spin\d+/);
    expect(y(await executor.run(feed(2)))).toBe(3);
    const host = await load(200, { threads: 1, mode: 'host' });
    const hostError = (await host.run(feed(2e7), { timeoutMs: 100 }).catch((e: unknown) => e)) as TsgeError;
    expect(hostError.code).toBe('TSGE-E6080');
    expect(y(await host.run(feed(2), { timeoutMs: 60_000 }))).toBe(3);
  });

  it('rejects a timeout that is not a positive number, naming the option', async () => {
    const executor = await load(1, { threads: 1 });
    for (const timeoutMs of [0, -5, Number.NaN, '100' as unknown as number]) {
      const error = (await executor.run(feed(1), { timeoutMs }).catch((e: unknown) => e)) as TsgeError;
      expect(error.code).toBe('TSGE-E7002');
      expect(error.message).toContain('timeoutMs');
    }
  });
});
