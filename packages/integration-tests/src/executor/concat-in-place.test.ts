// A Concat whose inputs are contiguous runs of its output is assembled in place: the compiler puts
// each producer's output inside the Concat's output and planned runs skip the Concat. Where the
// inputs interleave in the output (dims above 1 before the axis), or a producer has another reader,
// the Concat keeps its own memory and copies.
import { compileModel, defaultRegistries, loadModel } from '@tsge/ge';
import type { ExecutionMode, Executor } from '@tsge/ge';
import { GraphBuilder, type HostTensor, attr, createTensor } from '@tsge/metadef';
import type { ExecutionPlan, Task, TensorRef } from '@tsge/om';
import { afterEach, describe, expect, it } from 'vitest';

type KernelTask = Extract<Task, { kind: 'kernel' }>;

/** x → Relu, Neg → Concat(axis 1) → Mul 2 → y; with `alsoOut`, Relu's output is a graph output too. */
function graph(dims: number[], alsoOut = false) {
  const b = new GraphBuilder('concat', { ops: defaultRegistries().ops });
  const x = b.input('x', 'float32', dims);
  const relu = b.op('Relu', [x], { name: 'relu' });
  const neg = b.op('Neg', [x], { name: 'neg' });
  const cat = b.op('Concat', [relu, neg], { name: 'cat', attrs: { axis: attr.int(1) } });
  const two = b.constant('two', createTensor('float32', [1], Float32Array.of(2)));
  b.output(b.op('Mul', [cat, two], { name: 'mul' }), 'y');
  if (alsoOut) b.output(relu, 'r');
  return b.build();
}

/** The Concat of `x` (dims [outer, c, ...inner]) with itself negated, doubled, as a reference computes it. */
function expected(x: Float32Array, dims: number[]): number[] {
  const outer = dims[0] as number;
  const block = x.length / outer;
  const out: number[] = [];
  for (let o = 0; o < outer; o++) {
    const part = Array.from(x.subarray(o * block, (o + 1) * block));
    out.push(...part.map((v) => 2 * Math.max(0, v)), ...part.map((v) => -2 * v));
  }
  return out;
}

const open: Executor[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
});

async function compiled(dims: number[], alsoOut = false) {
  // one stream (the default on this machine's plans) and no fusion of the producers into the Mul
  const result = await compileModel(graph(dims, alsoOut), { optimizationSwitch: { 'auto-fusion': false }, streamLimit: 1 });
  const plan = result.model.taskInfo.plans[0] as ExecutionPlan;
  const task = (node: string): KernelTask => {
    const found = plan.streams.flatMap((s) => s.tasks).find((t): t is KernelTask => t.kind === 'kernel' && t.node === node);
    if (!found) throw new Error(`no task for ${node}`);
    return found;
  };
  return { om: result.om, task };
}

async function runs(om: Uint8Array, dims: number[]): Promise<number[][]> {
  const x = Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => ((i * 7) % 11) - 5);
  const results: number[][] = [];
  for (const [threads, mode] of [
    [1, 'sink'],
    [2, 'sink'],
    [1, 'host'],
  ] as [number, ExecutionMode][]) {
    const model = await loadModel(om, { threads, smallModelBytes: 0, startWorkers: 'eager' });
    open.push(model);
    const { y } = await model.run({ x: createTensor('float32', dims, x) }, { mode });
    results.push(Array.from((y as HostTensor).data as Float32Array));
  }
  expect(results).toEqual(results.map(() => expected(x, dims)));
  return results;
}

const end = (ref: TensorRef | undefined): number => (ref?.offset ?? 0) + (ref?.bytes ?? 0);

describe('Concat assembled in place', () => {
  it('puts the producers of a channel Concat inside its output and runs right in every mode', async () => {
    const dims = [1, 16, 4];
    const { om, task } = await compiled(dims);
    const cat = task('cat');
    expect(task('relu').outputs[0]?.offset).toBe(cat.outputs[0]?.offset);
    expect(task('neg').outputs[0]?.offset).toBe(end(task('relu').outputs[0]));
    expect(cat.inputs.map((r) => r.offset)).toEqual([task('relu').outputs[0]?.offset, task('neg').outputs[0]?.offset]);
    await runs(om, dims);
  });

  it('keeps separate memory when the inputs interleave in the output (a dim above 1 before the axis)', async () => {
    const dims = [2, 16, 4];
    const { om, task } = await compiled(dims);
    const cat = task('cat').outputs[0] as TensorRef;
    for (const node of ['relu', 'neg']) {
      const ref = task(node).outputs[0] as TensorRef;
      expect(ref.offset >= end(cat) || end(ref) <= cat.offset).toBe(true);
    }
    await runs(om, dims);
  });

  it('keeps separate memory for a producer that is also a graph output', async () => {
    const dims = [1, 16, 4];
    const { om, task } = await compiled(dims, true);
    const cat = task('cat').outputs[0] as TensorRef;
    const relu = task('relu').outputs[0] as TensorRef;
    expect(relu.offset >= end(cat) || end(relu) <= cat.offset).toBe(true);
    await runs(om, dims);
  });
});
