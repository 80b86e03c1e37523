import type { Graph, OpRegistry } from '@tsge/metadef';
import { GraphBuilder, createTensor } from '@tsge/metadef';
import type { ExecutionPlan, OmWriteInput, TensorRef } from '@tsge/om';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { compile } from '../compile.js';
import { randomFloats, smallCnn } from '../test-graphs.js';

/** A random DAG of elementwise and reshaping ops with branches and joins of varied sizes. */
function randomDag(ops: OpRegistry, seed: number, size: number): Graph {
  const rand = randomFloats(size * 4 + 8, seed);
  let k = 0;
  const next = () => ((rand[k++ % rand.length] as number) + 1) / 2;
  const b = new GraphBuilder(`dag${seed}`, { ops });
  const x = b.input('x', 'float32', [1, 8, 16]);
  const values = [x];
  for (let i = 0; i < size; i++) {
    const pick = () => values[Math.floor(next() * values.length)] ?? x;
    const r = next();
    const shapeOf = (v: (typeof values)[number]) => v.desc?.shape.join(',');
    if (r < 0.3) values.push(b.op('Relu', [pick()], { name: `relu${i}` }));
    else if (r < 0.5) values.push(b.op('Sigmoid', [pick()], { name: `sig${i}` }));
    else if (r < 0.75) {
      const a = pick();
      const c = values.filter((v) => shapeOf(v) === shapeOf(a));
      values.push(b.op('Add', [a, c[Math.floor(next() * c.length)] ?? a], { name: `add${i}` }));
    } else if (r < 0.9) {
      const a = pick();
      values.push(b.op('Concat', [a, a], { name: `cat${i}`, attrs: { axis: { kind: 'int', value: 2 } } }));
    } else {
      const a = pick();
      const scale = b.constant(`s${i}`, createTensor('float32', [1], Float32Array.of(next())));
      values.push(b.op('Mul', [a, scale], { name: `mul${i}` }));
    }
  }
  // outputs: the last value and one from the middle
  b.output(values[values.length - 1] ?? x, 'y');
  b.output(values[Math.floor(values.length / 2)] ?? x, 'z');
  return b.build();
}

/** Happens-before between tasks, from the plan's streams and events alone (vector clocks). */
function taskClocks(plan: ExecutionPlan): { hb: (a: string, b: string) => boolean } {
  const streams = plan.streams;
  const pos = streams.map(() => 0);
  const clocks = streams.map(() => new Array<number>(streams.length).fill(-1));
  const recorded = new Map<number, number[]>();
  const start = new Map<string, number[]>();
  const where = new Map<string, [number, number]>();
  const counters = streams.map(() => 0);
  let progressed = true;
  while (progressed) {
    progressed = false;
    streams.forEach((s, si) => {
      for (;;) {
        const task = s.tasks[pos[si] as number];
        if (!task) return;
        const clock = clocks[si] as number[];
        if (task.kind === 'wait') {
          const rc = recorded.get(task.event);
          if (!rc) return;
          rc.forEach((v, i) => {
            clock[i] = Math.max(clock[i] as number, v);
          });
        } else if (task.kind === 'record') recorded.set(task.event, [...clock]);
        else {
          start.set(task.node, [...clock]);
          where.set(task.node, [si, counters[si] as number]);
          clock[si] = counters[si] as number;
          counters[si] = (counters[si] as number) + 1;
        }
        pos[si] = (pos[si] as number) + 1;
        progressed = true;
      }
    });
  }
  for (const [si, s] of streams.entries()) expect(pos[si], `stream ${si} deadlocks`).toBe(s.tasks.length);
  return {
    hb: (a, b) => {
      const w = where.get(a);
      const c = start.get(b);
      return !!w && !!c && (c[w[0]] as number) >= w[1];
    },
  };
}

/**
 * Checks a compiled model's plan without the planner: two arena tensors whose byte ranges overlap
 * must have disjoint lifetimes (all accesses of one happen before the other is written), except an
 * output written in place over an input it consumes last. Graph inputs/outputs overlap nothing.
 */
function checkPlan(model: OmWriteInput, plan: ExecutionPlan): number {
  const { hb } = taskClocks(plan);
  type T = { ref: TensorRef; def: string; uses: string[]; pinned: boolean };
  const tensors = new Map<string, T>();
  const graph = model.graph;
  const net = graph.outputNode();
  const outputs = new Set((net?.inData ?? []).map((a) => `${a.peer?.node.name}:${a.peer?.index}`));
  for (const s of plan.streams)
    for (const t of s.tasks) {
      if (t.kind !== 'kernel') continue;
      const node = graph.findNode(t.node);
      if (!node) throw new Error(`task node ${t.node} missing`);
      t.outputs.forEach((ref, i) => {
        if (ref.region !== 'arena') return;
        const key = `${t.node}:${i}`;
        const uses = (node.outData[i]?.peers ?? []).map((p) => p.node.name).filter((n) => n !== net?.name);
        tensors.set(key, { ref, def: t.node, uses, pinned: outputs.has(key) });
      });
    }
  plan.inputs.forEach((ref, i) => {
    const data = graph.inputNodes()[i];
    if (ref.region === 'arena' && data) tensors.set(`input${i}`, { ref, def: data.name, uses: [], pinned: true });
  });
  const list = [...tensors.values()];
  let overlaps = 0;
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++) {
      const a = list[i] as T;
      const b = list[j] as T;
      expect(a.ref.offset + a.ref.bytes).toBeLessThanOrEqual(plan.arenaBytes);
      const overlap = a.ref.offset < b.ref.offset + b.ref.bytes && b.ref.offset < a.ref.offset + a.ref.bytes;
      if (!overlap) continue;
      overlaps++;
      expect(a.pinned || b.pinned, `${a.def} and ${b.def} overlap with a graph input/output`).toBe(false);
      const before = (x: T, y: T) =>
        hb(x.def, y.def) && x.uses.every((u) => hb(u, y.def) || (u === y.def && x.uses.filter((v) => v !== u).every((v) => hb(v, y.def))));
      expect(before(a, b) || before(b, a), `${a.def} and ${b.def} share memory while both live`).toBe(true);
    }
  return overlaps;
}

describe('memory plan', () => {
  const ops: OpRegistry = createDefaultOpRegistry();
  const kernels = createKernelRegistryOf([jsKernelLibrary]);
  const graphs = [smallCnn(ops), ...[1, 2, 3, 4, 5, 6].map((seed) => randomDag(ops, seed, 30))];
  it.each([1, 2, 3])('is valid and within bounds on random graphs with %i stream(s)', async (streamLimit) => {
    let shared = 0;
    for (const graph of graphs) {
      const result = await compile(graph, { ops, kernels, streamLimit, optLevel: 0, verify: true });
      const plan = result.model.taskInfo.plans[0] as ExecutionPlan;
      shared += checkPlan(result.model, plan);
      const m = plan.memory;
      expect(m.lowerBoundBytes).toBeLessThanOrEqual(m.arenaBytes);
      expect(m.arenaBytes).toBeLessThanOrEqual(m.noReuseBytes);
      if (streamLimit === 1) expect(m.arenaBytes).toBeLessThanOrEqual(1.25 * m.lowerBoundBytes);
    }
    expect(shared).toBeGreaterThan(0);
  });

  it('gives every tensor its own memory with disableReuseMemory', async () => {
    const result = await compile(graphs[1] as Graph, { ops, kernels, disableReuseMemory: true, optLevel: 0 });
    const plan = result.model.taskInfo.plans[0] as ExecutionPlan;
    expect(checkPlan(result.model, plan)).toBe(0);
    expect(plan.memory.arenaBytes).toBe(plan.memory.noReuseBytes);
  });

  it('places independent branches on two streams with events, or one with enableSingleStream', async () => {
    const b = new GraphBuilder('branches', { ops });
    const x = b.input('x', 'float32', [4, 4]);
    const left = b.op('Relu', [b.op('Sigmoid', [x], { name: 'l1' })], { name: 'l2' });
    const right = b.op('Tanh', [b.op('Neg', [x], { name: 'r1' })], { name: 'r2' });
    b.output(b.op('Add', [left, right], { name: 'join' }), 'y');
    const graph = b.build();
    // auto-fusion would make the whole graph one generated kernel: the branches stay ops here
    const noFusion = { 'auto-fusion': false };
    const two = (await compile(graph, { ops, kernels, streamLimit: 2, optimizationSwitch: noFusion })).model.taskInfo
      .plans[0] as ExecutionPlan;
    expect(two.streams.filter((s) => s.tasks.length > 0)).toHaveLength(2);
    expect(two.eventCount).toBe(1);
    const kinds = two.streams.flatMap((s) => s.tasks.map((t) => t.kind));
    expect(kinds.filter((k) => k === 'record')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'wait')).toHaveLength(1);
    const one = (await compile(graph, { ops, kernels, enableSingleStream: true, optimizationSwitch: noFusion })).model.taskInfo
      .plans[0] as ExecutionPlan;
    expect(one.streams.filter((s) => s.tasks.length > 0)).toHaveLength(1);
    expect(one.eventCount).toBe(0);
  });
});
