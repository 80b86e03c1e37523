import { TsgeError } from '@tsge/metadef';
import type { HostTensor } from '@tsge/metadef';
import { afterEach, describe, expect, it } from 'vitest';
import { CountBatch, FlowData, FlowGraph, FlowGraphPp, FlowNode, type FlowSession, FunctionPp, TimeBatch, startFlow } from './index.js';

const fixtures = new URL('../test/functions.fixture.ts', import.meta.url).href;
const f32 = (...values: number[]): HostTensor => ({ type: 'float32', dims: [values.length], data: Float32Array.from(values) });
const valuesOf = (m: { value?: unknown }): number[] => Array.from((m.value as HostTensor).data as Float32Array);

function fnNode(
  name: string,
  exportName: string,
  inputs: number,
  outputs: number,
  options: ConstructorParameters<typeof FlowNode>[2] = {},
  params = {},
) {
  const node = new FlowNode(inputs, outputs, { name, ...options });
  node.addProcessPoint(new FunctionPp({ module: fixtures, export: exportName, params, inputCount: inputs, outputCount: outputs }));
  return node;
}

let sessions: FlowSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  sessions = [];
});
async function start(graph: FlowGraph, options: Parameters<typeof startFlow>[1] = {}): Promise<FlowSession> {
  const s = await startFlow(graph, { fetchTimeoutMs: 5000, ...options });
  sessions.push(s);
  return s;
}

describe('flow graphs in process', () => {
  it('runs a diamond of functions with init params and aligns the join by transaction', async () => {
    const x = new FlowData({ name: 'x', dtype: 'float32', shape: [-1] });
    const [a] = fnNode('double', 'scale', 1, 1, {}, { factor: 2 }).call(x);
    const [b] = fnNode('triple', 'scale', 1, 1, {}, { factor: 3 }).call(x);
    const [sum] = fnNode('sum', 'add', 2, 1).call(a!, b!);
    const session = await start(new FlowGraph([sum!]));
    for (let i = 0; i < 20; i++) await session.feed([f32(i, i + 1)], { transactionId: 100 + i, userData: Uint8Array.of(i) });
    for (let i = 0; i < 20; i++) {
      const [m] = await session.fetch();
      expect(m!.header.transactionId).toBe(100 + i);
      expect(m!.header.userData).toEqual(Uint8Array.of(i));
      expect(valuesOf(m!)).toEqual([5 * i, 5 * (i + 1)]);
      expect(m!.header.processedAt).toBeGreaterThanOrEqual(m!.header.fedAt);
    }
  });

  it('mapInput/mapOutput reorder a point against its node', async () => {
    const x = new FlowData();
    const y = new FlowData();
    const node = new FlowNode(2, 2, { name: 'm' });
    const point = new FunctionPp({
      module: fixtures,
      export: 'multi',
      inputCount: 2,
      outputCount: 2,
      functions: [
        { name: 'upper', inputs: [0] },
        { name: 'negate', inputs: [1] },
      ],
    });
    node.addProcessPoint(point).mapInput(0, point, 1).mapInput(1, point, 0).mapOutput(0, point, 1).mapOutput(1, point, 0);
    const [negated, upper] = node.call(x, y);
    const session = await start(new FlowGraph([negated!, upper!]));
    await session.feed([f32(1, -2), new TextEncoder().encode('hello')]);
    const [n] = await session.fetch([0]);
    const [u] = await session.fetch([1]);
    expect(valuesOf(n!)).toEqual([-1, 2]);
    expect(new TextDecoder().decode(u!.value as Uint8Array)).toBe('HELLO');
  });

  it('delivers a failing proc to fetch with its transaction id and keeps running', async () => {
    const x = new FlowData();
    const [y] = fnNode('check', 'failOnNegative', 1, 1).call(x);
    const [z] = fnNode('after', 'scale', 1, 1, {}, { factor: 10 }).call(y!);
    const session = await start(new FlowGraph([z!]));
    await session.feed([f32(1)], { transactionId: 1 });
    await session.feed([f32(-1)], { transactionId: 2 });
    await session.feed([f32(3)], { transactionId: 3 });
    const got = [(await session.fetch())[0]!, (await session.fetch())[0]!, (await session.fetch())[0]!];
    expect(valuesOf(got[0]!)).toEqual([10]);
    expect(got[1]!.header.transactionId).toBe(2);
    expect(TsgeError.isInstance(got[1]!.error)).toBe(true);
    expect(got[1]!.error!.code).toBe('TSGE-E8108');
    expect(got[1]!.error!.message).toMatch(/node check failed on transaction 2: negative input/);
    expect(valuesOf(got[2]!)).toEqual([30]);
    const stats = session.stats();
    expect(stats.check).toMatchObject({ received: 3, processed: 3, failed: 1, emitted: 3, queued: [0] });
    expect(stats.after).toMatchObject({ received: 3, processed: 3, failed: 1, emitted: 3 });
    expect(stats.check?.latencyMs?.p50).toBeLessThanOrEqual(stats.check?.latencyMs?.p99 as number);
  });

  it('splits a message into segments that keep their transaction id', async () => {
    const x = new FlowData({ dtype: 'bytes' });
    const [words] = fnNode('split', 'splitWords', 1, 1).call(x);
    const session = await start(new FlowGraph([words!]));
    await session.feed([new TextEncoder().encode('one two three')], { transactionId: 7 });
    const parts = [];
    for (let i = 0; i < 3; i++) parts.push((await session.fetch())[0]!);
    expect(parts.map((p) => new TextDecoder().decode(p.value as Uint8Array))).toEqual(['one', 'two', 'three']);
    expect(parts.map((p) => [p.header.transactionId, p.header.segment, p.header.segmentEnd])).toEqual([
      [7, 0, false],
      [7, 1, false],
      [7, 2, true],
    ]);
  });

  it('drops or fails transactions whose inputs do not align in time', async () => {
    for (const onMissing of ['drop', 'error'] as const) {
      const x = new FlowData();
      const [a] = fnNode('a', 'failOnNegative', 1, 1).call(x);
      const [b] = fnNode('b', 'scale', 1, 1).call(x);
      // a's error message for transaction 2 still aligns; an upstream that sends nothing does not:
      const [sum] = fnNode('join', 'add', 2, 1, { align: { timeoutMs: 30, onMissing } }).call(a!, b!);
      const session = await start(new FlowGraph([sum!]));
      await session.feed([f32(1)], { transactionId: 1 });
      const [ok] = await session.fetch();
      expect(valuesOf(ok!)).toEqual([2]);
      session.close();
    }
    // a node input fed by a split producer has no partner for segments > 0
    const x = new FlowData({ dtype: 'bytes' });
    const y = new FlowData({ dtype: 'bytes' });
    const [words] = fnNode('split2', 'splitWords', 1, 1).call(x);
    const join = new FlowNode(2, 1, { name: 'join2', align: { timeoutMs: 30, onMissing: 'error' } });
    const point = new FunctionPp({
      implementation: { specVersion: 'v1', proc: ([p, q]) => [new Uint8Array([...(p as Uint8Array), ...(q as Uint8Array)])] },
      inputCount: 2,
      outputCount: 1,
    });
    join.addProcessPoint(point);
    const [joined] = join.call(words!, y);
    const session = await start(new FlowGraph([joined!]));
    await session.feed([new TextEncoder().encode('a b'), new TextEncoder().encode('!')], { transactionId: 5 });
    const [first] = await session.fetch();
    expect(new TextDecoder().decode(first!.value as Uint8Array)).toBe('a!');
    const [late] = await session.fetch();
    expect(late!.error?.code).toBe('TSGE-E8109');
    expect(late!.header).toMatchObject({ transactionId: 5, segment: 1 });
    expect(session.stats().join2?.dropped).toBe(1);
  });

  it('CountBatch concatenates along dimension 0, flushes on timeout and on EOS', async () => {
    const x = new FlowData();
    const node = new FlowNode(1, 1, { name: 'batch' });
    node.addProcessPoint(new CountBatch({ count: 3, timeoutMs: 40 }));
    const [batched] = node.call(x);
    const session = await start(new FlowGraph([batched!]));
    for (let i = 0; i < 4; i++) await session.feed([{ type: 'float32', dims: [1, 2], data: Float32Array.of(i, -i) }]);
    const [full] = await session.fetch();
    expect((full!.value as HostTensor).dims).toEqual([3, 2]);
    expect(valuesOf(full!)).toEqual([0, -0, 1, -1, 2, -2]);
    const [timedOut] = await session.fetch();
    expect((timedOut!.value as HostTensor).dims).toEqual([1, 2]);
    await session.feed([{ type: 'float32', dims: [1, 2], data: Float32Array.of(9, 9) }], { eos: true });
    const [last] = await session.fetch();
    expect(last!.header.eos).toBe(true);
    expect((last!.value as HostTensor).dims).toEqual([1, 2]);
  });

  it('TimeBatch gathers what arrives within its window', async () => {
    const x = new FlowData();
    const node = new FlowNode(1, 1, { name: 'tb' });
    node.addProcessPoint(new TimeBatch({ windowMs: 50 }));
    const [batched] = node.call(x);
    const session = await start(new FlowGraph([batched!]));
    for (let i = 0; i < 5; i++) await session.feed([f32(i)]);
    const [m] = await session.fetch();
    expect(valuesOf(m!)).toEqual([0, 1, 2, 3, 4]);
    expect(m!.header.transactionId).toBe(0);
  });

  it('spreads work over instances round robin or by key', async () => {
    const x = new FlowData();
    const [rr] = fnNode('rr', 'whoAmI', 1, 1, { instances: 3 }).call(x);
    const [byKey] = fnNode('key', 'whoAmI', 1, 1, { instances: 3, balance: { byKey: 'userData' } }).call(x);
    const session = await start(new FlowGraph([rr!, byKey!]));
    const seen = new Map<number, Set<number>>();
    const rrSeen = new Set<number>();
    for (let i = 0; i < 12; i++) await session.feed([f32(i)], { userData: Uint8Array.of(i % 2) });
    for (let i = 0; i < 12; i++) {
      const [a, b] = await session.fetch();
      rrSeen.add(((a!.value as HostTensor).data as Int32Array)[0]!);
      const key = a!.header.userData![0]!;
      const set = seen.get(key) ?? new Set();
      set.add(((b!.value as HostTensor).data as Int32Array)[0]!);
      seen.set(key, set);
    }
    expect([...rrSeen].sort()).toEqual([0, 1, 2]);
    for (const set of seen.values()) expect(set.size).toBe(1);
  });

  it('flattens a nested flow graph point', async () => {
    const inner = new FlowData();
    const [twice] = fnNode('twice', 'scale', 1, 1, {}, { factor: 2 }).call(inner);
    const [plus] = fnNode('plus', 'add', 2, 1).call(twice!, inner);
    const nested = new FlowGraphPp(new FlowGraph([plus!], { name: 'inner' }));
    const outer = new FlowData();
    const node = new FlowNode(1, 1, { name: 'sub' });
    node.addProcessPoint(nested);
    const [y] = node.call(outer);
    const [z] = fnNode('neg', 'scale', 1, 1, {}, { factor: -1 }).call(y!);
    const graph = new FlowGraph([z!]);
    expect(graph.compile().spec.nodes.map((n) => n.name)).toEqual(['sub/twice', 'sub/plus', 'neg']);
    const session = await start(graph);
    await session.feed([f32(1, 2)]);
    expect(valuesOf((await session.fetch())[0]!)).toEqual([-3, -6]);
  });

  it('bounds memory with back-pressure: feed waits, rejects or times out when the queues are full', async () => {
    const x = new FlowData();
    const [y] = fnNode('slow', 'slowIdentity', 1, 1, { queueDepth: 2 }, { delayMs: 1000 }).call(x);
    const session = await start(new FlowGraph([y!]), { outputDepth: 1 });
    // one in the point, one in its job slot, one taken by the dispatcher, two in the edge queue
    for (let i = 0; i < 5; i++) await session.feed([f32(i)], { timeoutMs: 200 });
    await expect(session.feed([f32(9)], { whenFull: 'reject' })).rejects.toMatchObject({ code: 'TSGE-E8104' });
    await expect(session.feed([f32(9)], { timeoutMs: 20 })).rejects.toMatchObject({ code: 'TSGE-E8105' });
    await expect(session.fetch(undefined, { timeoutMs: 10 })).rejects.toMatchObject({ code: 'TSGE-E8106' });
  });

  it('rejects bad feeds with coded errors', async () => {
    const x = new FlowData({ name: 'image', dtype: 'float32', shape: [2, -1] });
    const [y] = fnNode('id', 'scale', 1, 1).call(x);
    const session = await start(new FlowGraph([y!]));
    const ok = { type: 'float32', dims: [2, 1], data: new Float32Array(2) };
    const cases: [unknown[], object, string, RegExp][] = [
      [[], {}, 'TSGE-E8103', /the graph has 1 inputs, 0 were fed/],
      [[{ type: 'int32', dims: [2, 1], data: Int32Array.of(1, 2) }], {}, 'TSGE-E8103', /image.*dtype int32, expected float32/],
      [[{ type: 'float32', dims: [3], data: new Float32Array(3) }], {}, 'TSGE-E8103', /shape \[3\], expected \[2,-1\]/],
      [[{ type: 'float32', dims: [2, 2], data: new Float32Array(3) }], {}, 'TSGE-E8103', /3 elements but dims \[2,2\] need 4/],
      [['text'], {}, 'TSGE-E8103', /expected a tensor/],
      [[new Uint8Array(2)], {}, 'TSGE-E8103', /expected a float32 tensor, got raw bytes/],
      [[ok], { transactionId: -1 }, 'TSGE-E8112', /transactionId/],
      [[ok], { userData: new Uint8Array(300) }, 'TSGE-E8112', /userData/],
      [[ok], { timeoutMs: -5 }, 'TSGE-E8112', /timeoutMs/],
    ];
    for (const [inputs, options, code, message] of cases) {
      const error = await session.feed(inputs as never, options).catch((e: unknown) => e);
      expect(TsgeError.isInstance(error), String(error)).toBe(true);
      expect((error as TsgeError).code).toBe(code);
      expect((error as TsgeError).message).toMatch(message);
    }
    await session.close();
    await expect(session.feed([{ type: 'float32', dims: [2, 1], data: new Float32Array(2) }])).rejects.toMatchObject({
      code: 'TSGE-E8107',
    });
  });

  it('reports graph-building mistakes and unloadable functions with coded errors', async () => {
    const x = new FlowData();
    expect(() => new FlowNode(1, 1).call(x, x)).toThrow(/takes 1 inputs, called with 2/);
    const unmapped = new FlowNode(2, 1, { name: 'u' });
    unmapped.addProcessPoint(new FunctionPp({ module: fixtures, export: 'add', inputCount: 1, outputCount: 1 }));
    const [u] = unmapped.call(x, x);
    expect(() => new FlowGraph([u!]).compile()).toThrow(/input 0 of point .* is not mapped/);
    const unconnected = new FlowNode(1, 1, { name: 'lonely' });
    expect(() => new FlowGraph([new (class extends Object {})() as never])).toThrow(TsgeError);
    expect(() => new FlowGraph([{ node: unconnected, index: 0 } as never])).toThrow(/not a node output/);
    for (const [exportName, reason] of [
      ['missing', /has no export missing/],
      ['notAFunction', /not a FlowFunctionV1/],
    ] as const) {
      const [out] = fnNode(`bad_${exportName}`, exportName, 1, 1).call(new FlowData());
      await expect(startFlow(new FlowGraph([out!]))).rejects.toMatchObject({ code: 'TSGE-E8110', message: expect.stringMatching(reason) });
    }
    const [nope] = new FlowNode(1, 1, { name: 'nomod' })
      .addProcessPoint(new FunctionPp({ module: 'no-such-module-tsge', inputCount: 1, outputCount: 1 }))
      .call(new FlowData());
    await expect(startFlow(new FlowGraph([nope!]))).rejects.toMatchObject({ code: 'TSGE-E8110' });
  });
});
