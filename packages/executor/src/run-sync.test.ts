import type { Graph, HostTensor, Node, RuntimeValue } from '@tsge/metadef';
import { GraphBuilder, type TsgeError, attr, createTensorDesc } from '@tsge/metadef';
import { afterEach, describe, expect, it } from 'vitest';
import { openModel } from './open-model.js';
import type { Executor, LoadModelOptions } from './options.js';
import { assembleModel } from './testing/assemble-model.fixture.js';
import { TEST_DOMAIN } from './testing/test-kernels.fixture.js';

const kernelModules = [new URL('./testing/test-kernels.fixture.ts', import.meta.url)];
const open: Executor[] = [];
async function load(graph: Graph, options: LoadModelOptions & { streamOf?: (n: Node) => number } = {}): Promise<Executor> {
  const model = assembleModel(graph, options.streamOf ? { streamOf: options.streamOf } : {});
  const executor = await openModel(model, { kernelModules, startWorkers: 'eager', smallModelBytes: 0, ...options });
  open.push(executor);
  return executor;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
});

const W = new Float32Array([1, -2, 3, -4, 5, -6, 7, -8]);
/** Two streams: x → Add(x, w) → Relu = a;  x → Spin = s;  y = Add(a, s). */
function twoStreams(spin = 1): Graph {
  const b = new GraphBuilder('two-streams');
  const desc = createTensorDesc('float32', [2, 4]);
  const x = b.input('x', 'float32', [2, 4]);
  const w = b.constant('w', W, [2, 4]);
  const o = { domain: TEST_DOMAIN, outputDescs: [desc] };
  const a = b.op('Relu', [b.op('Add', [x, w], { ...o, name: 'a_add' })], { ...o, name: 'a_relu' });
  const s = b.op('Spin', [x], { ...o, name: 'b_spin', attrs: { iterations: attr.int(spin) } });
  b.output(b.op('Add', [a, s], { ...o, name: 'join' }), 'y');
  b.output(a, 'a');
  return b.build();
}
const streamOf = (n: Node): number => (n.name.startsWith('b_') ? 1 : 0);
const X = new Float32Array([1, 2, 3, 4, -5, -6, 7, 8]);
const feeds = { x: { type: 'float32', dims: [2, 4], data: X } };
const values = (v: RuntimeValue | undefined): number[] => Array.from((v as HostTensor).data as Float32Array);

describe('Executor.runSync', () => {
  it('returns what run returns, on the calling thread, without giving the event loop a turn', async () => {
    const executor = await load(twoStreams(), { threads: 2, streamOf, profile: true });
    expect(executor.mode).toBe('sink');
    const want = await executor.run(feeds);
    let ticked = false;
    setImmediate(() => {
      ticked = true;
    });
    const got = executor.runSync(feeds);
    expect(ticked).toBe(false);
    expect(Object.keys(got)).toEqual(['y', 'a']);
    expect(values(got.y)).toEqual(values(want.y));
    expect(values(got.a)).toEqual(values(want.a));
    expect((got.y as HostTensor).dims).toEqual([2, 4]);
    // outputs are copies: a second run does not change the first one's values
    const zeros = executor.runSync({ x: { type: 'float32', dims: [2, 4], data: new Float32Array(8) } });
    expect(values(got.y)).toEqual(values(want.y));
    expect(values(zeros.a)).toEqual(Array.from(W, (v) => Math.max(0, v)));
    // profiled on thread 0, the calling thread
    const synced = executor.profile().traceEvents.filter((e) => e.ph === 'X' && e.args.run >= 2);
    expect(synced.map((e) => e.name).sort()).toEqual(['a_add', 'a_relu', 'b_spin', 'join', 'a_add', 'a_relu', 'b_spin', 'join'].sort());
    expect(new Set(synced.map((e) => e.tid))).toEqual(new Set([0]));
  });

  it('runs dynamic plans with run-time allocation', async () => {
    const b = new GraphBuilder('dynamic');
    const n = b.input('n', 'float32', [1]);
    const iota = b.op('Iota', [n], { name: 'iota', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', ['len'])] });
    b.output(b.op('Relu', [iota], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', ['len'])] }), 'y');
    const executor = await load(b.build(), { threads: 2 });
    for (const size of [5, 3]) {
      const r = executor.runSync({ n: { type: 'float32', dims: [1], data: [size] } });
      expect(values(r.y)).toEqual(Array.from({ length: size }, (_, i) => i));
    }
  });

  it('checks feeds as run does, stops at the deadline, and refuses sink mode', async () => {
    const executor = await load(twoStreams(30_000_000), { threads: 1, streamOf });
    expect(() => executor.runSync({ y: feeds.x })).toThrow(expect.objectContaining({ code: 'TSGE-E6002' }));
    expect(() => executor.runSync(feeds, { timeoutMs: 1 })).toThrow(expect.objectContaining({ code: 'TSGE-E6080' }));
    expect(() => executor.runSync(feeds, { mode: 'sink' } as never)).toThrow(expect.objectContaining({ code: 'TSGE-E7002' }));
  });

  it('fails with TSGE-E8312 while asynchronous runs hold every arena, and works again after them', async () => {
    const executor = await load(twoStreams(3_000_000), { threads: 2, streamOf, maxConcurrentRuns: 1 });
    const pending = executor.run(feeds);
    // the async run took the one arena before its first await
    await Promise.resolve();
    let error: unknown;
    try {
      executor.runSync(feeds);
    } catch (e) {
      error = e;
    }
    expect((error as TsgeError).code).toBe('TSGE-E8312');
    const want = await pending;
    expect(values(executor.runSync(feeds).y)).toEqual(values(want.y));
  });

  it('fails after release with TSGE-E6006', async () => {
    const executor = await openModel(assembleModel(twoStreams()), { kernelModules, threads: 1 });
    await executor.release();
    expect(() => executor.runSync(feeds)).toThrow(expect.objectContaining({ code: 'TSGE-E6006' }));
  });
});
