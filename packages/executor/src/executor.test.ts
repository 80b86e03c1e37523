import type { Graph, HostTensor, Node, RuntimeValue } from '@tsge/metadef';
import { GraphBuilder, TsgeError, attr, createTensorDesc } from '@tsge/metadef';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openModel } from './open-model.js';
import type { Executor, LoadModelOptions, TraceEvent } from './options.js';
import { assembleModel } from './testing/assemble-model.fixture.js';
import { TEST_DOMAIN } from './testing/test-kernels.fixture.js';
import { wasmAddModule } from './testing/wasm-add.fixture.js';

const kernelModules = [new URL('./testing/test-kernels.fixture.ts', import.meta.url)];
const open: Executor[] = [];
async function load(
  graph: Graph,
  options: LoadModelOptions & { streamOf?: (n: Node) => number; dynamicNodes?: string[] } = {},
): Promise<Executor> {
  const model = assembleModel(graph, {
    ...(options.streamOf ? { streamOf: options.streamOf } : {}),
    ...(options.dynamicNodes ? { dynamicNodes: options.dynamicNodes } : {}),
  });
  // worker mechanics are under test here: wait for the workers at load, and use them for these
  // small graphs (which would otherwise run on the calling thread)
  const executor = await openModel(model, { kernelModules, startWorkers: 'eager', smallModelBytes: 0, ...options });
  open.push(executor);
  return executor;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
});

const W1 = new Float32Array([1, -2, 3, -4, 5, -6, 7, -8]);
const W2 = new Float32Array([0.5, 2, -1, 3, 1, 1, -2, 0.25]);

/** x → Add(x, w1) → Relu = a (branch A);  x → Mul(x, w2) → Spin = b (branch B);  y = Add(a, b). */
function twoBranchGraph(spin = 1): Graph {
  const b = new GraphBuilder('two-branch');
  const desc = createTensorDesc('float32', [2, 4]);
  const x = b.input('x', 'float32', [2, 4]);
  const w1 = b.constant('w1', W1, [2, 4]);
  const w2 = b.constant('w2', W2, [2, 4]);
  const o = { domain: TEST_DOMAIN, outputDescs: [desc] };
  const a1 = b.op('Add', [x, w1], { ...o, name: 'a_add' });
  const a2 = b.op('Relu', [a1], { ...o, name: 'a_relu' });
  const b1 = b.op('Mul', [x, w2], { ...o, name: 'b_mul' });
  const b2 = b.op('Spin', [b1], { ...o, name: 'b_spin', attrs: { iterations: attr.int(spin) } });
  const y = b.op('Add', [a2, b2], { ...o, name: 'join' });
  b.output(y, 'y');
  b.output(a2, 'a');
  return b.build();
}
const branchStreams = (n: Node): number => (n.name.startsWith('b_') ? 1 : 0);

function expected(x: Float32Array): { y: number[]; a: number[] } {
  const a = Array.from(x, (v, i) => Math.max(0, v + (W1[i] as number)));
  const bb = Array.from(x, (v, i) => Math.fround(v * (W2[i] as number)) + 1);
  return { y: a.map((v, i) => Math.fround(v + (bb[i] as number))), a: a.map((v) => Math.fround(v)) };
}
const X = new Float32Array([1, 2, 3, 4, -5, -6, 7, 8]);
const values = (v: RuntimeValue | undefined): number[] => Array.from((v as HostTensor).data as Float32Array);

describe('executor', () => {
  it('sink mode with workers, sink on the calling thread and host mode give identical outputs', async () => {
    const sink = await load(twoBranchGraph(), { threads: 2, streamOf: branchStreams });
    expect(sink.mode).toBe('sink');
    expect(sink.threads).toBe(2);
    const here = await load(twoBranchGraph(), { threads: 1, streamOf: branchStreams });
    const host = await load(twoBranchGraph(), { threads: 2, mode: 'host', streamOf: branchStreams });
    expect(host.mode).toBe('host');
    const feeds = { x: { type: 'float32', dims: [2, 4], data: X } };
    const results = [await sink.run(feeds), await here.run(feeds), await host.run(feeds), await sink.run(feeds, { mode: 'host' })];
    const want = expected(X);
    for (const r of results) {
      expect(values(r.y)).toEqual(want.y);
      expect(values(r.a)).toEqual(want.a);
      expect((r.y as HostTensor).dims).toEqual([2, 4]);
    }
  });

  it('loads without waiting for workers (lazy start) and gives the same outputs before and after they are up', async () => {
    const lazy = await openModel(assembleModel(twoBranchGraph(), { streamOf: branchStreams }), {
      kernelModules,
      threads: 2,
      smallModelBytes: 0,
      profile: true,
    });
    const feeds = { x: { type: 'float32', dims: [2, 4], data: X } };
    const first = await lazy.run(feeds);
    await lazy.whenReady();
    const later = await lazy.run(feeds);
    // after whenReady the run went to the workers (threads 1 and 2 in the trace)
    const laterThreads = lazy
      .profile()
      .traceEvents.filter((e) => e.ph === 'X' && e.args.run === 2)
      .map((e) => e.tid);
    expect(laterThreads.length).toBeGreaterThan(0);
    expect(laterThreads.every((tid) => tid > 0)).toBe(true);
    const want = expected(X);
    for (const r of [first, later]) {
      expect(values(r.y)).toEqual(want.y);
      expect(values(r.a)).toEqual(want.a);
    }
    await lazy.release();
  });

  it('two streams give the same outputs as one stream', async () => {
    const two = await load(twoBranchGraph(), { threads: 2, streamOf: branchStreams });
    const one = await load(twoBranchGraph(), { threads: 2 });
    const feeds = { x: { type: 'float32', dims: [2, 4], data: X } };
    const [r2, r1] = [await two.run(feeds), await one.run(feeds)];
    expect(values(r2.y)).toEqual(values(r1.y));
    expect(values(r2.a)).toEqual(values(r1.a));
  });

  it('outputs do not alias device memory and repeated runs stay correct', async () => {
    const executor = await load(twoBranchGraph(), { threads: 2, streamOf: branchStreams });
    const first = await executor.run({ x: { type: 'float32', dims: [2, 4], data: X } });
    const zeros = new Float32Array(8);
    const second = await executor.run({ x: { type: 'float32', dims: [2, 4], data: zeros } });
    expect(values(first.y)).toEqual(expected(X).y);
    expect(values(second.y)).toEqual(expected(zeros).y);
  });

  it('serves concurrent runs, each with its own arena, queueing beyond the limit', async () => {
    const executor = await load(twoBranchGraph(2000), { threads: 2, streamOf: branchStreams, maxConcurrentRuns: 2 });
    const inputs = Array.from({ length: 5 }, (_, k) => X.map((v) => v * (k + 1)));
    const results = await Promise.all(inputs.map((x) => executor.run({ x: { type: 'float32', dims: [2, 4], data: x } })));
    results.forEach((r, k) => {
      expect(values(r.y)).toEqual(expected(inputs[k] as Float32Array).y);
    });
  });

  async function ticksDuring(
    executor: Executor,
    feeds: Record<string, { type: string; dims: number[]; data: Float32Array }>,
  ): Promise<number> {
    let ticks = 0;
    let finished = false;
    const timer = setInterval(() => {
      if (!finished) ticks++;
    }, 1);
    await executor.run(feeds).finally(() => {
      finished = true;
    });
    clearInterval(timer);
    return ticks;
  }

  it('never deadlocks when concurrent runs cross events between workers', async () => {
    // events in both directions: a1 → b2 (stream 0 → 1) and b1 → a2 (stream 1 → 0)
    const b = new GraphBuilder('cross');
    const desc = createTensorDesc('float32', [4]);
    const o = { domain: TEST_DOMAIN, outputDescs: [desc] };
    const x = b.input('x', 'float32', [4]);
    const a1 = b.op('Spin', [x], { ...o, name: 'a1', attrs: { iterations: attr.int(200) } });
    const b1 = b.op('Relu', [x], { ...o, name: 'b1' });
    const a2 = b.op('Add', [a1, b1], { ...o, name: 'a2' });
    const b2 = b.op('Mul', [b1, a1], { ...o, name: 'b2' });
    b.output(b.op('Add', [a2, b2], { ...o, name: 'a3' }), 'y');
    const executor = await load(b.build(), { threads: 2, maxConcurrentRuns: 3, streamOf: (n) => (n.name.startsWith('b') ? 1 : 0) });
    const inputs = Array.from({ length: 60 }, (_, k) => Float32Array.from([k, -k, k / 2, 1]));
    const results = await Promise.all(inputs.map((data) => executor.run({ x: { type: 'float32', dims: [4], data } })));
    results.forEach((r, k) => {
      const x4 = inputs[k] as Float32Array;
      const want = Array.from(x4, (v) => {
        const a = Math.fround(v + 1);
        const relu = Math.max(0, v);
        return Math.fround(Math.fround(a + relu) + Math.fround(relu * a));
      });
      expect(values(r.y)).toEqual(want);
    });
  });

  it('keeps the event loop responsive while workers run a long kernel', async () => {
    const executor = await load(twoBranchGraph(3_000_000), { threads: 2, streamOf: branchStreams });
    expect(await ticksDuring(executor, { x: { type: 'float32', dims: [2, 4], data: X } })).toBeGreaterThan(0);
  });

  it('yields to the event loop between tasks on the calling thread', async () => {
    // a chain of 40 kernels of a few milliseconds each
    const b = new GraphBuilder('chain');
    const desc = createTensorDesc('float32', [2, 4]);
    let v = b.input('x', 'float32', [2, 4]);
    for (let i = 0; i < 40; i++)
      v = b.op('Spin', [v], { name: `spin${i}`, domain: TEST_DOMAIN, outputDescs: [desc], attrs: { iterations: attr.int(100_000) } });
    b.output(v, 'y');
    const graph = b.build();
    for (const mode of ['sink', 'host'] as const) {
      const executor = await load(graph.clone(), { threads: 1, mode });
      expect(await ticksDuring(executor, { x: { type: 'float32', dims: [2, 4], data: X } }), mode).toBeGreaterThan(0);
      const r = await executor.run({ x: { type: 'float32', dims: [2, 4], data: X } });
      expect(values(r.y)).toEqual(Array.from(X, (x) => x + 40));
    }
  });

  it('rejects wrong inputs before any kernel runs', async () => {
    const executor = await load(twoBranchGraph(), { threads: 1 });
    const code = async (feeds: Record<string, unknown>): Promise<string> => {
      try {
        await executor.run(feeds as never);
        return 'ok';
      } catch (error) {
        expect(TsgeError.isInstance(error)).toBe(true);
        return `${(error as TsgeError).code} ${(error as Error).message}`;
      }
    };
    expect(await code({})).toMatch(/^TSGE-E6001 .*input x is missing/);
    expect(await code({ x: { type: 'float32', dims: [2, 4], data: X }, z: { type: 'float32', dims: [1], data: [1] } })).toMatch(
      /^TSGE-E6002 .*unknown input z; the model has inputs x/,
    );
    expect(await code({ x: { type: 'int32', dims: [2, 4], data: new Int32Array(8) } })).toMatch(
      /^TSGE-E6003 .*input x has dtype int32; expected float32/,
    );
    expect(await code({ x: { type: 'float32', dims: [8], data: X } })).toMatch(/^TSGE-E6004 .*input x has shape \[8\]; expected \[2,4\]/);
    expect(await code({ x: { type: 'float32', dims: [4, 2], data: X } })).toMatch(/^TSGE-E6004 .*shape \[4,2\]; expected \[2,4\]/);
    expect(await code({ x: { type: 'float32', dims: [2, 4], data: [1, 2, 3] } })).toMatch(/^TSGE-E6004 /);
    expect(await code({ x: { type: 'float32', dims: [2, 4], data: Array.from(X) } })).toBe('ok');
  });

  it('fails at load when a kernel is missing, naming the node and op', async () => {
    const b = new GraphBuilder('missing');
    const x = b.input('x', 'float32', [2]);
    b.output(b.op('NoSuchOp', [x], { name: 'mystery', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', [2])] }), 'y');
    const error = await load(b.build(), { threads: 1 }).catch((e: unknown) => e);
    expect(TsgeError.isInstance(error)).toBe(true);
    expect((error as TsgeError).code).toBe('TSGE-E4004');
    expect((error as Error).message).toMatch(/NoSuchOp.*node mystery/);
  });

  it('rejects a plan whose tensors leave their region', async () => {
    const model = assembleModel(twoBranchGraph());
    const task = model.taskInfo.plans[0]?.streams[0]?.tasks.find((t) => t.kind === 'kernel');
    if (task?.kind === 'kernel' && task.outputs[0]) task.outputs[0] = { ...task.outputs[0], offset: 1 << 20 };
    const error = await openModel(model, { kernelModules, threads: 1 }).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E2006');
    expect((error as Error).message).toMatch(/leaves its region/);
  });

  it('rejects a plan whose streams would wait forever', async () => {
    const model = assembleModel(twoBranchGraph(), { streamOf: branchStreams });
    const plan = model.taskInfo.plans[0];
    const producer = plan?.streams.find((s) => s.tasks.some((t) => t.kind === 'record'));
    if (!producer) throw new Error('the two-branch plan has a record');
    // the recording stream first waits on the event it would record: nobody can go on
    producer.tasks.unshift({ kind: 'wait', event: 0 });
    const error = await openModel(model, { kernelModules, threads: 2, smallModelBytes: 0 }).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E2006');
    expect((error as Error).message).toMatch(/never recorded before them/);
  });

  it('reports a failing kernel in a worker as TSGE-E6007 and keeps working', async () => {
    const b = new GraphBuilder('fail');
    const desc = createTensorDesc('float32', [2]);
    const x = b.input('x', 'float32', [2]);
    const ok = b.op('Relu', [x], { name: 'fine', domain: TEST_DOMAIN, outputDescs: [desc] });
    const bad = b.op('Fail', [x], { name: 'broken', domain: TEST_DOMAIN, outputDescs: [desc] });
    b.output(ok, 'ok').output(bad, 'bad');
    const executor = await load(b.build(), { threads: 2, streamOf: (n) => (n.name === 'broken' ? 1 : 0) });
    for (let i = 0; i < 2; i++) {
      const error = await executor.run({ x: { type: 'float32', dims: [2], data: [1, -1] } }).catch((e: unknown) => e);
      expect((error as TsgeError).code).toBe('TSGE-E6007');
      expect((error as Error).message).toMatch(/Fail failed at node broken: this kernel always fails/);
    }
  });

  it('reports a worker that dies mid-run or cannot start with TSGE-E6009', async () => {
    const b = new GraphBuilder('exit');
    const x = b.input('x', 'float32', [2]);
    b.output(b.op('Exit', [x], { name: 'exit', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', [2])] }), 'y');
    const graph = b.build();
    const executor = await load(graph.clone(), { threads: 2 });
    const error = await executor.run({ x: { type: 'float32', dims: [2], data: [1, 2] } }).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E6009');
    const modules = [...kernelModules, new URL('./testing/main-thread-only.fixture.ts', import.meta.url)];
    const startError = await openModel(assembleModel(twoBranchGraph()), {
      kernelModules: modules,
      threads: 2,
      startWorkers: 'eager',
      smallModelBytes: 0,
    }).catch((e: unknown) => e);
    expect((startError as TsgeError).code).toBe('TSGE-E6009');
    expect((startError as Error).message).toMatch(/refuses to load in a worker/);
  });

  it('refuses an output larger than its planned place', async () => {
    const b = new GraphBuilder('oversize');
    const x = b.input('x', 'float32', [2]);
    b.output(b.op('Oversize', [x], { name: 'big', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', [2])] }), 'y');
    const graph = b.build();
    for (const mode of ['sink', 'host'] as const) {
      const executor = await load(graph.clone(), { threads: 1, mode });
      const error = await executor.run({ x: { type: 'float32', dims: [2], data: [1, 2] } }).catch((e: unknown) => e);
      expect((error as TsgeError).code).toBe('TSGE-E6007');
      expect((error as Error).message).toMatch(/node big: output 0/);
    }
  });

  it('runs dynamic parts in host mode with run-time allocation', async () => {
    const b = new GraphBuilder('dynamic');
    const n = b.input('n', 'float32', [1]);
    const iota = b.op('Iota', [n], { name: 'iota', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', ['len'])] });
    const y = b.op('Relu', [iota], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', ['len'])] });
    b.output(y, 'y');
    const executor = await load(b.build(), { threads: 2 });
    expect(executor.mode).toBe('sink');
    const r5 = await executor.run({ n: { type: 'float32', dims: [1], data: [5] } });
    expect((r5.y as HostTensor).dims).toEqual([5]);
    expect(values(r5.y)).toEqual([0, 1, 2, 3, 4]);
    const r3 = await executor.run({ n: { type: 'float32', dims: [1], data: [3] } });
    expect(values(r3.y)).toEqual([0, 1, 2]);
  });

  it('copies a value a kernel hands over with setOutput to the planned place', async () => {
    const b = new GraphBuilder('alias');
    const desc = createTensorDesc('float32', [2]);
    const x = b.input('x', 'float32', [2]);
    const r = b.op('Relu', [x], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [desc] });
    const alias = b.op('Alias', [r], { name: 'alias', domain: TEST_DOMAIN, outputDescs: [desc] });
    const clobber = b.op('Clobber', [r], { name: 'clobber', domain: TEST_DOMAIN, outputDescs: [desc] });
    b.output(alias, 'alias').output(clobber, 'clobber');
    const graph = b.build();
    for (const mode of ['sink', 'host'] as const) {
      const executor = await load(graph.clone(), { threads: 1, mode });
      const result = await executor.run({ x: { type: 'float32', dims: [2], data: [3, 4] } });
      expect(values(result.alias), mode).toEqual([3, 4]);
    }
  });

  it('accepts any size for a symbolic input dim', async () => {
    const b = new GraphBuilder('symbolic');
    const x = b.input('x', 'float32', ['batch', 2]);
    b.output(b.op('Relu', [x], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', ['batch', 2])] }), 'y');
    const executor = await load(b.build(), { threads: 1 });
    expect(executor.inputMetadata).toEqual([{ name: 'x', dtype: 'float32', shape: ['batch', 2] }]);
    const r = await executor.run({ x: { type: 'float32', dims: [3, 2], data: [1, -1, 2, -2, 3, -3] } });
    expect(values(r.y)).toEqual([1, 0, 2, 0, 3, 0]);
    const error = await executor.run({ x: { type: 'float32', dims: [3, 3], data: new Float32Array(9) } }).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E6004');
  });

  it('interprets subgraphs of control-flow kernels (on a worker: the model is dynamic), with outer-scope captures', async () => {
    // then: v + w_then;  else: v * z, where z is an outer value captured as an implicit input
    const thenGraph = new GraphBuilder('then');
    const tv = thenGraph.input('v', 'float32', [2]);
    const tw = thenGraph.constant('then_w', new Float32Array([10, 20]), [2]);
    thenGraph.output(
      thenGraph.op('Add', [tv, tw], { name: 'then_op', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', [2])] }),
      'r',
    );
    const elseGraph = new GraphBuilder('else');
    const ev = elseGraph.input('v', 'float32', [2]);
    const ez = elseGraph.input('z', 'float32', [2], { parentIndex: 1 });
    ez.node.opDesc.attrs.set('_implicit_input', attr.bool(true));
    elseGraph.output(
      elseGraph.op('Mul', [ev, ez], { name: 'else_op', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', [2])] }),
      'r',
    );
    const b = new GraphBuilder('choose');
    const x = b.input('x', 'float32', [2]);
    const z = b.op('Relu', [b.input('z', 'float32', [2])], {
      name: 'outer',
      domain: TEST_DOMAIN,
      outputDescs: [createTensorDesc('float32', [2])],
    });
    const y = b.op('Choose', [x, z], {
      name: 'choose',
      domain: TEST_DOMAIN,
      attrs: { _implicit_inputs: attr.int(1) },
      outputDescs: [createTensorDesc('float32', [2])],
      subgraphs: { then_branch: thenGraph.build(), else_branch: elseGraph.build() },
    });
    b.output(y, 'y');
    const executor = await load(b.build(), { threads: 2, dynamicNodes: ['choose'] });
    expect(executor.mode).toBe('sink');
    const feeds = (xs: number[]) => ({ x: { type: 'float32', dims: [2], data: xs }, z: { type: 'float32', dims: [2], data: [3, -1] } });
    expect(values((await executor.run(feeds([1, 2]))).y)).toEqual([11, 22]);
    expect(values((await executor.run(feeds([-1, 2]))).y)).toEqual([-3, 0]);
  });

  it('picks the plan of the matching gear, else TSGE-E6008', async () => {
    const build = (batch: number | string): Graph => {
      const b = new GraphBuilder('gears');
      const x = b.input('x', 'float32', [batch, 2]);
      b.output(b.op('Relu', [x], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', [batch, 2])] }), 'y');
      return b.build();
    };
    const model = assembleModel(build('N'), { gears: [1, 4].map((n) => ({ gear: { x: [n, 2] }, graph: build(n) })) });
    const executor = await openModel(model, { kernelModules, threads: 2, smallModelBytes: 0 });
    open.push(executor);
    expect(executor.mode).toBe('sink');
    const r = await executor.run({ x: { type: 'float32', dims: [4, 2], data: [1, -1, 2, -2, 3, -3, 4, -4] } });
    expect(values(r.y)).toEqual([1, 0, 2, 0, 3, 0, 4, 0]);
    expect(values((await executor.run({ x: { type: 'float32', dims: [1, 2], data: [-1, 5] } })).y)).toEqual([0, 5]);
    const error = await executor.run({ x: { type: 'float32', dims: [3, 2], data: new Float32Array(6) } }).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E6008');
    expect((error as Error).message).toMatch(/x=\[3,2\].*x=\[1,2\] \| x=\[4,2\]/);
  });

  it('profiles tasks as a Chrome trace with stream and thread', async () => {
    const executor = await load(twoBranchGraph(), { threads: 2, streamOf: branchStreams, profile: true });
    await executor.run({ x: { type: 'float32', dims: [2, 4], data: X } });
    const trace = executor.profile();
    const tasks = trace.traceEvents.filter((e): e is TraceEvent => e.ph === 'X');
    expect(tasks.map((e) => e.name).sort()).toEqual(['a_add', 'a_relu', 'b_mul', 'b_spin', 'join']);
    const spin = tasks.find((e) => e.name === 'b_spin');
    expect(spin?.args.stream).toBe(1);
    expect(spin?.dur).toBeGreaterThanOrEqual(0);
    expect(new Set(tasks.map((e) => e.tid))).toEqual(new Set([1, 2]));
    const names = trace.traceEvents.filter((e) => e.ph === 'M').map((e) => e.args.name);
    expect(names).toEqual(['worker 0', 'worker 1']);
    expect(JSON.parse(JSON.stringify(trace)).traceEvents).toHaveLength(7);
  });

  it('rejects a model larger than the memory limit, and run-time tensors beyond it, with TSGE-E6005', async () => {
    const error = await load(twoBranchGraph(), { threads: 1, maxMemoryBytes: 512 }).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E6005');
    expect((error as Error).message).toMatch(/needs \d+ bytes of device memory; the limit is 512/);
    const b = new GraphBuilder('dynamic-big');
    const n = b.input('n', 'float32', [1]);
    b.output(b.op('Iota', [n], { name: 'iota', domain: TEST_DOMAIN, outputDescs: [createTensorDesc('float32', ['len'])] }), 'y');
    const executor = await load(b.build(), { threads: 1, maxMemoryBytes: 4 << 20 });
    const big = await executor.run({ n: { type: 'float32', dims: [1], data: [8 << 20] } }).catch((e: unknown) => e);
    expect((big as TsgeError).code).toBe('TSGE-E6005');
    expect(values((await executor.run({ n: { type: 'float32', dims: [1], data: [2] } })).y)).toEqual([0, 1]);
  });

  it('runs generated WebAssembly kernels over the shared device memory', async () => {
    const b = new GraphBuilder('wasm');
    const desc = createTensorDesc('float32', [4]);
    const x = b.input('x', 'float32', [4]);
    const sum = b.op('Add', [x, b.constant('w', new Float32Array([10, 20, 30, 40]), [4])], {
      name: 'gen_add',
      domain: TEST_DOMAIN,
      outputDescs: [desc],
    });
    b.output(b.op('Relu', [sum], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [desc] }), 'y');
    const graph = b.build();
    for (const options of [{ threads: 2 }, { threads: 1 }, { threads: 1, mode: 'host' as const }]) {
      const model = assembleModel(graph.clone(), {
        kernelOf: (n) => (n.name === 'gen_add' ? 'wasm:gen0:add' : undefined),
        kernels: [{ name: 'gen0', bytes: wasmAddModule() }],
      });
      // worker mechanics are under test here: wait for the workers at load
      const executor = await openModel(model, { kernelModules, startWorkers: 'eager', allowModelWasm: true, ...options });
      open.push(executor);
      const { y } = await executor.run({ x: { type: 'float32', dims: [4], data: [1, -25, 3, -50] } });
      expect(values(y), JSON.stringify(options)).toEqual([11, 0, 33, 0]);
    }
    const model = assembleModel(graph.clone(), {
      kernelOf: (n) => (n.name === 'gen_add' ? 'wasm:gen0:nope' : undefined),
      kernels: [{ name: 'gen0', bytes: wasmAddModule() }],
    });
    const error = await openModel(model, { kernelModules, threads: 1, allowModelWasm: true }).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E4004');
    const broken = assembleModel(graph.clone(), { kernels: [{ name: 'gen0', bytes: wasmAddModule().subarray(0, 20) }] });
    const compileError = await openModel(broken, { kernelModules, threads: 1, allowModelWasm: true }).catch((e: unknown) => e);
    expect((compileError as TsgeError).code).toBe('TSGE-E2006');
  });

  it('never compiles WebAssembly from the file unless the user opts in (TSGE-E6081)', async () => {
    const b = new GraphBuilder('wasm-gate');
    const desc = createTensorDesc('float32', [4]);
    const x = b.input('x', 'float32', [4]);
    const sum = b.op('Add', [x, b.constant('w', new Float32Array([10, 20, 30, 40]), [4])], {
      name: 'gen_add',
      domain: TEST_DOMAIN,
      outputDescs: [desc],
    });
    b.output(sum, 'y');
    const bytes = wasmAddModule();
    const model = assembleModel(b.build(), {
      kernelOf: (n) => (n.name === 'gen_add' ? 'wasm:gen0:add' : undefined),
      kernels: [{ name: 'gen0', bytes }],
    });
    // Node's types do not declare the WebAssembly global
    const engine = (
      globalThis as unknown as { WebAssembly: { compile(b: unknown): Promise<unknown>; instantiate(b: unknown): Promise<unknown> } }
    ).WebAssembly;
    const compile = vi.spyOn(engine, 'compile');
    const instantiate = vi.spyOn(engine, 'instantiate');
    try {
      for (const options of [{ threads: 1 }, { threads: 2, startWorkers: 'eager' as const }, { allowModelWasm: false }]) {
        const error = await openModel(model, { kernelModules, ...options }).catch((e: unknown) => e);
        expect(TsgeError.isInstance(error), String(error)).toBe(true);
        expect((error as TsgeError).code).toBe('TSGE-E6081');
        expect((error as TsgeError).message).toContain('allowModelWasm: true');
        expect((error as TsgeError).message).toContain('"gen0"');
      }
      // the file's bytes never reached the engine
      const fromFile = (arg: unknown): boolean =>
        arg instanceof Uint8Array && arg.length === bytes.length && arg.every((v, i) => v === bytes[i]);
      expect(compile.mock.calls.some(([arg]) => fromFile(arg))).toBe(false);
      expect(instantiate.mock.calls.some(([arg]) => fromFile(arg))).toBe(false);
    } finally {
      compile.mockRestore();
      instantiate.mockRestore();
    }
  });

  it('splits parallel kernels into tiles that idle workers help with', async () => {
    const b = new GraphBuilder('tiles');
    const x = b.input('x', 'float32', [64]);
    const [y, who] = b.opN('ParallelScale', [x], 2, {
      name: 'scale',
      domain: TEST_DOMAIN,
      attrs: { meet: attr.int(1) },
      outputDescs: [createTensorDesc('float32', [64]), createTensorDesc('int32', [5])],
    });
    if (!y || !who) throw new Error('two outputs');
    b.output(y, 'y').output(who, 'who');
    const graph = b.build();
    const data = Float32Array.from({ length: 64 }, (_, i) => i - 10);
    for (const threads of [2, 1]) {
      const executor = await load(graph.clone(), { threads });
      // one stream, yet both threads start: the second helps with tiles
      expect(executor.threads).toBe(threads);
      for (let run = 0; run < 3; run++) {
        const result = await executor.run({ x: { type: 'float32', dims: [64], data } });
        expect(values(result.y)).toEqual(Array.from(data, (v) => v * 3));
        const ran = Array.from((result.who as HostTensor).data as Int32Array).slice(0, 4);
        expect(ran.every((t) => t > 0)).toBe(true);
        if (threads === 2) expect(new Set(ran).size, `threads that ran tiles: ${ran}`).toBe(2);
      }
    }
  });

  it('fails runs after release with TSGE-E6006', async () => {
    const executor = await openModel(assembleModel(twoBranchGraph()), { kernelModules, threads: 2 });
    await executor.release();
    const error = await executor.run({ x: { type: 'float32', dims: [2, 4], data: X } }).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E6006');
  });
});
