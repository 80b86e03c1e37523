import { GraphBuilder, createTensorDesc } from '@tsge/metadef';
import { afterEach, describe, expect, it } from 'vitest';
import { openModel } from './open-model.js';
import type { Executor, LoadModelOptions, TraceEvent } from './options.js';
import { assembleModel } from './testing/assemble-model.fixture.js';
import { TEST_DOMAIN, recorded } from './testing/test-kernels.fixture.js';

const kernelModules = [new URL('./testing/test-kernels.fixture.ts', import.meta.url)];
const open: Executor[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
  recorded.length = 0;
});

function recordModel(shape: (number | string)[]) {
  const b = new GraphBuilder('record');
  const x = b.input('x', 'float32', shape);
  b.output(b.op('Record', [x], { name: 'record', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', shape)] }), 'y');
  return assembleModel(b.build());
}

async function load(shape: (number | string)[], options: LoadModelOptions): Promise<Executor> {
  const executor = await openModel(recordModel(shape), { kernelModules, threads: 1, ...options });
  open.push(executor);
  return executor;
}

const feeds = { x: { type: 'float32', dims: [2, 2], data: [1, 2, 3, 4] } };

describe('warm-up at load', () => {
  it('runs a static model on zeros before the load returns (a cheap one eight times), and keeps it out of the profile', async () => {
    const executor = await load([2, 2], { profile: true });
    expect(recorded).toEqual(Array(8).fill(0));
    await executor.run(feeds);
    expect(recorded).toEqual([...Array(8).fill(0), 10]);
    const tasks = executor.profile().traceEvents.filter((e): e is TraceEvent => e.ph === 'X');
    expect(tasks.map((e) => e.args.run)).toEqual([1]);
  });

  it('is skipped with warmUp: false and for models with run-time shapes', async () => {
    await load([2, 2], { warmUp: false });
    await load(['n', 2], {});
    expect(recorded).toEqual([]);
  });

  it('warms a model with run-time dims on the shapes given, and only then', async () => {
    const executor = await load(['n', 2], { warmUp: { shapes: { x: [3, 2] } }, profile: true });
    expect(recorded).toEqual(Array(8).fill(0));
    await executor.run(feeds);
    expect(recorded).toEqual([...Array(8).fill(0), 10]);
    expect(
      executor
        .profile()
        .traceEvents.filter((e): e is TraceEvent => e.ph === 'X')
        .map((e) => e.args.run),
    ).toEqual([1]);
  });

  it('takes an input with fixed dims at its own shape and checks the given ones', async () => {
    await load([2, 2], { warmUp: { shapes: {} } });
    await load([2, 2], { warmUp: { shapes: { x: [2, 2] } } });
    expect(recorded).toEqual(Array(16).fill(0));
  });

  it.each([
    [{ shapes: { y: [1, 2] } }, 'LoadModelOptions.warmUp.shapes', /no such input \(inputs: x\)/],
    [{ shapes: {} }, 'LoadModelOptions.warmUp.shapes.x', /run-time dims \[n,2\]: give its shape/],
    [{ shapes: { x: [3] } }, 'LoadModelOptions.warmUp.shapes.x', /has rank 2/],
    [{ shapes: { x: [3, 5] } }, 'LoadModelOptions.warmUp.shapes.x', /dim 1 of input x is fixed at 2/],
    [{ shapes: { x: [3, -1] } }, 'LoadModelOptions.warmUp.shapes.x', /non-negative integers/],
    [{ shapes: { x: [2 ** 40, 2] } }, 'LoadModelOptions.warmUp.shapes.x', /exceed the device memory limit/],
    [{ shapes: null }, 'LoadModelOptions.warmUp', /expected a boolean or/],
    ['yes', 'LoadModelOptions.warmUp', /expected a boolean or/],
  ])('refuses warmUp %j with TSGE-E7002 naming the option', async (warmUp, option, reason) => {
    const error = await load(['n', 2], { warmUp: warmUp as LoadModelOptions['warmUp'] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TSGE-E7002', message: expect.stringContaining(option) });
    expect((error as Error).message).toMatch(reason);
    expect(recorded).toEqual([]);
  });
});
