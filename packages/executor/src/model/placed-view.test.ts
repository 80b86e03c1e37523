// A view op (Reshape, Flatten, Squeeze, Unsqueeze) whose output the plan put on its input's bytes,
// or a Concat whose inputs were written over its output, is skipped by planned runs; one whose
// output has bytes of its own (or whose inputs interleave in it) still copies.
import type { HostTensor } from '@tsge/metadef';
import { GraphBuilder, attr, createTensor } from '@tsge/metadef';
import { createDefaultOpRegistry } from '@tsge/ops';
import type { OmModel, TensorRef } from '@tsge/om';
import { afterEach, describe, expect, it } from 'vitest';
import { openModel } from '../open-model.js';
import type { Executor } from '../options.js';
import { assembleModel } from '../testing/assemble-model.fixture.js';
import { nodesByName, preparePlans } from './prepare-plans.js';

const X = new Float32Array([1, -2, 3, -4, 5, -6, 7, -8]);

/** x[2,4] → Relu → Reshape [4,2] → Neg → y */
function model(): OmModel {
  const b = new GraphBuilder('views', { ops: createDefaultOpRegistry() });
  const x = b.input('x', 'float32', [2, 4]);
  const relu = b.op('Relu', [x], { name: 'relu' });
  const shape = b.constant('shape', createTensor('int64', [2], new BigInt64Array([4n, 2n])));
  const reshaped = b.op('Reshape', [relu, shape], { name: 'reshape' });
  b.output(b.op('Neg', [reshaped], { name: 'neg' }), 'y');
  return assembleModel(b.build());
}

/** The model with the reshape's output planned on its input's bytes, as the compiler's in-place sharing does. */
function inPlace(m: OmModel): OmModel {
  const tasks = m.taskInfo.plans[0]?.streams[0]?.tasks ?? [];
  const kernel = (name: string) =>
    tasks.find((t) => t.kind === 'kernel' && t.node === name) as Extract<(typeof tasks)[number], { kind: 'kernel' }>;
  const source = kernel('relu').outputs[0] as TensorRef;
  const moved = { ...(kernel('reshape').outputs[0] as TensorRef), offset: source.offset };
  (kernel('reshape').outputs as TensorRef[])[0] = moved;
  (kernel('neg').inputs as TensorRef[])[0] = moved;
  return m;
}

/** x[outer,2] → Relu, Neg → Concat(axis 1) → y; with `packed`, the producers' outputs planned one after another over y. */
function concatModel(outer: number, packed: boolean): OmModel {
  const b = new GraphBuilder('concat', { ops: createDefaultOpRegistry() });
  const x = b.input('x', 'float32', [outer, 2]);
  const cat = b.op('Concat', [b.op('Relu', [x], { name: 'relu' }), b.op('Neg', [x], { name: 'neg' })], {
    name: 'cat',
    attrs: { axis: attr.int(1) },
  });
  b.output(b.op('Abs', [cat], { name: 'abs' }), 'y');
  const m = assembleModel(b.build());
  if (!packed) return m;
  const tasks = m.taskInfo.plans[0]?.streams[0]?.tasks ?? [];
  const kernel = (name: string) =>
    tasks.find((t) => t.kind === 'kernel' && t.node === name) as Extract<(typeof tasks)[number], { kind: 'kernel' }>;
  const y = kernel('cat').outputs[0] as TensorRef;
  let offset = y.offset;
  for (const [i, name] of ['relu', 'neg'].entries()) {
    const ref = { ...(kernel(name).outputs[0] as TensorRef), offset };
    (kernel(name).outputs as TensorRef[])[0] = ref;
    (kernel('cat').inputs as TensorRef[])[i] = ref;
    offset += ref.bytes;
  }
  return m;
}

const views = (m: OmModel): string[] =>
  (preparePlans(m, () => nodesByName(m.graph)).plans[0]?.streams ?? []).flatMap((s) =>
    s.tasks.flatMap((t) => (t.kind === 'kernel' && t.kernel.placedView ? [t.kernel.node] : [])),
  );

const open: Executor[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
});

async function run(m: OmModel, threads: number): Promise<number[]> {
  const executor = await openModel(m, { threads, smallModelBytes: 0, startWorkers: 'eager' });
  open.push(executor);
  const { y } = await executor.run({ x: createTensor('float32', [2, 4], X) });
  expect((y as HostTensor).dims).toEqual([4, 2]);
  return Array.from((y as HostTensor).data as Float32Array);
}

describe('placed views', () => {
  const expected = Array.from(X, (v) => -Math.max(0, v));

  it('marks a reshape whose output is its input bytes, and the run skips it', async () => {
    expect(views(inPlace(model()))).toEqual(['reshape']);
    for (const threads of [1, 2]) expect(await run(inPlace(model()), threads)).toEqual(expected);
  });

  it('marks a Concat whose inputs were written one after another over its output', async () => {
    expect(views(concatModel(1, true))).toEqual(['cat']);
    expect(views(concatModel(1, false))).toEqual([]);
    const executor = await openModel(concatModel(1, true), { threads: 1 });
    open.push(executor);
    const { y } = await executor.run({ x: createTensor('float32', [1, 2], Float32Array.of(3, -4)) });
    expect(Array.from((y as HostTensor).data as Float32Array)).toEqual([3, 0, 3, 4]);
  });

  it('leaves a Concat whose inputs interleave in its output (outer dim 2) to copy, even packed', async () => {
    expect(views(concatModel(2, true))).toEqual([]);
    const executor = await openModel(concatModel(2, false), { threads: 1 });
    open.push(executor);
    const { y } = await executor.run({ x: createTensor('float32', [2, 2], Float32Array.of(3, -4, -5, 6)) });
    expect(Array.from((y as HostTensor).data as Float32Array)).toEqual([3, 0, 3, 4, 0, 6, 5, 6]);
  });

  it('leaves a reshape with its own output bytes to copy', async () => {
    expect(views(model())).toEqual([]);
    for (const threads of [1, 2]) expect(await run(model(), threads)).toEqual(expected);
  });
});
