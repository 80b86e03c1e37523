// Plans and packed weights the compiler records in the .om: a Conv's plan (implementation, slab,
// tiles), a PackedMatMul's (GEMV or GEMM, tiles) and a pooling's (plane runs) on their tasks, run on one thread (split again) and on the two it was made for, against
// onnxruntime-node; a plan or a packed weight that does not fit its task is a coded error (the
// executor's TSGE-E6007 naming the node, caused by the kernel's own code), not a wrong result.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { readOm, writeOm } from '@tsge/om';
import { describe, expect, it } from 'vitest';
import { expectLikeOrt, lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { type Attr, type NodeSpec, type Operand, onnxModel } from '../transformer/single-node-model.fixture.js';

const random = lcg(47);
const f32 = (name: string, dims: readonly (number | string)[]): Operand => ({ name, type: 'float32', dims });
const constant = (name: string, dims: number[]): NodeSpec => ({
  opType: 'Constant',
  domain: '',
  inputs: [],
  outputs: [name],
  attrs: [{ name: 'value', tensor: { dims, data: randomFloats('float32', dims, random).data as Float32Array } }],
});

/** y = Relu(Conv(x[1, 8, 24, 40], W[m, 8, k, k] + b)) with these attributes. */
function convModel(m: number, k: number, attrs: Attr[]): Uint8Array {
  const nodes: NodeSpec[] = [
    constant('w', [m, 8, k, k]),
    constant('b', [m]),
    { opType: 'Conv', domain: '', inputs: ['x', 'w', 'b'], outputs: ['h'], attrs },
    { opType: 'Relu', domain: '', inputs: ['h'], outputs: ['y'] },
  ];
  return onnxModel(nodes, [f32('x', [1, 8, 24, 40])], [f32('y', [1, m, 'oh', 'ow'])], 13);
}

type OmModel = NonNullable<ReturnType<typeof readOm>['model']>;

/** The .om with `edit` applied to the attributes of every kernel task of `opType` (checksums rewritten). */
function withTaskAttrs(
  om: Uint8Array,
  opType: string,
  edit: (attrs: Record<string, { kind: string; value: unknown }>) => void,
): Uint8Array {
  const model = readOm(om).model as OmModel;
  let edited = 0;
  for (const plan of model.taskInfo.plans)
    for (const stream of plan.streams)
      for (const task of stream.tasks)
        if (task.kind === 'kernel' && task.opType === opType && task.attrs) {
          edit(task.attrs as Record<string, { kind: string; value: unknown }>);
          edited++;
        }
  expect(edited).toBeGreaterThan(0);
  return writeOm({ ...model, modelName: model.header.modelName, target: model.header.target, flags: model.header.flags });
}

async function loadAndRun(om: Uint8Array, feeds: Record<string, HostTensor>): Promise<void> {
  const model = await loadModel(om, { threads: 2 });
  try {
    await model.run(feeds);
  } finally {
    await model.release();
  }
}

describe('Conv plans recorded in the .om', () => {
  // label, output channels, kernel size, attributes, the path code recorded (conv-plan.ts)
  const cases: [string, number, number, Attr[], number][] = [
    ['3×3 with 16 channels: direct slab', 16, 3, [{ name: 'pads', ints: [1, 1, 1, 1] }], 2],
    [
      '3×3 stride 2: im2col',
      48,
      3,
      [
        { name: 'pads', ints: [1, 1, 1, 1] },
        { name: 'strides', ints: [2, 2] },
      ],
      1,
    ],
    ['1×1 with 24 channels: pointwise panels', 24, 1, [], 6],
  ];
  for (const [label, m, k, attrs, path] of cases)
    it(`${label}, planned for 2 threads, on 1 and 2`, async () => {
      const bytes = convModel(m, k, attrs);
      const compiled = await compileModel(await parseModel(bytes, { fileName: 'conv.onnx' }), { threads: 2 });
      expect(compiled.summary.counters['kernel-plans']).toBe(1);
      const tasks = readOm(compiled.om).model?.taskInfo.plans[0]?.streams.flatMap((s) => s.tasks) ?? [];
      const conv = tasks.find((t) => t.kind === 'kernel' && t.opType === 'FusedConv');
      const plan = conv?.kind === 'kernel' ? conv.attrs?.conv_plan : undefined;
      expect(plan?.kind).toBe('ints');
      // [version, path, threads, ...]
      expect(plan?.kind === 'ints' ? plan.value.slice(0, 3) : []).toEqual([1, path, 2]);
      for (const threads of [1, 2])
        await expectLikeOrt({
          label: `${label} t${threads}`,
          bytes,
          feeds: { x: randomFloats('float32', [1, 8, 24, 40], random) },
          outputs: ['y'],
          tolerance: 1e-4,
          threads,
          compile: { threads: 2 },
        });
    });

  it('a plan that does not fit its task is TSGE-E7106, not a wrong result', async () => {
    const bytes = convModel(16, 3, [{ name: 'pads', ints: [1, 1, 1, 1] }]);
    const { om } = await compileModel(await parseModel(bytes, { fileName: 'conv.onnx' }), { threads: 2 });
    const feeds = { x: randomFloats('float32', [1, 8, 24, 40], random) };
    // the direct plan relabelled pointwise (a 3×3 cannot read its input in place)
    const bad = withTaskAttrs(om, 'FusedConv', (attrs) => {
      const plan = attrs.conv_plan as { kind: string; value: number[] };
      attrs.conv_plan = { kind: 'ints', value: [plan.value[0] as number, 3, ...plan.value.slice(2)] };
    });
    // the executor's kernel failure (TSGE-E6007, naming the node) carries the plan's own code
    await expect(loadAndRun(bad, feeds)).rejects.toMatchObject({ code: 'TSGE-E6007', cause: { code: 'TSGE-E7106' } });
  });
});

/** The recorded plan attribute of the first kernel task of `opType` in a compiled .om. */
function taskPlan(om: Uint8Array, opType: string, name: string): number[] | undefined {
  const tasks = readOm(om).model?.taskInfo.plans[0]?.streams.flatMap((s) => s.tasks) ?? [];
  const task = tasks.find((t) => t.kind === 'kernel' && t.opType === opType);
  const plan = task?.kind === 'kernel' ? task.attrs?.[name] : undefined;
  return plan?.kind === 'ints' ? plan.value : undefined;
}

describe('PackedMatMul and pooling plans recorded in the .om', () => {
  // label, model, input dims, task op, plan attribute, path recorded (matmul-plan.ts, pool-plan.ts)
  const matmul = (rows: number): Uint8Array =>
    onnxModel(
      [constant('w', [96, 200]), { opType: 'MatMul', domain: '', inputs: ['x', 'w'], outputs: ['y'] }],
      [f32('x', [rows, 96])],
      [f32('y', [rows, 200])],
      13,
    );
  const pool = (opType: string, attrs: Attr[]): Uint8Array =>
    onnxModel(
      [{ opType, domain: '', inputs: ['x'], outputs: ['y'], attrs }],
      [f32('x', [1, 16, 30, 30])],
      [f32('y', [1, 16, 'oh', 'ow'])],
      13,
    );
  const cases: [string, Uint8Array, number[], string, string, number][] = [
    ['MatMul with 2 rows: GEMV on the panels', matmul(2), [2, 96], 'PackedMatMul', 'matmul_plan', 1],
    ['MatMul with 150 rows: GEMM on the panels', matmul(150), [150, 96], 'PackedMatMul', 'matmul_plan', 2],
    [
      'MaxPool 3×3 stride 2: window kernels',
      pool('MaxPool', [
        { name: 'kernel_shape', ints: [3, 3] },
        { name: 'strides', ints: [2, 2] },
        { name: 'pads', ints: [1, 1, 1, 1] },
      ]),
      [1, 16, 30, 30],
      'MaxPool',
      'pool_plan',
      2,
    ],
    [
      'AveragePool over the whole plane: a plane reduction',
      pool('AveragePool', [{ name: 'kernel_shape', ints: [30, 30] }]),
      [1, 16, 30, 30],
      'AveragePool',
      'pool_plan',
      1,
    ],
  ];
  for (const [label, bytes, dims, opType, name, path] of cases)
    it(`${label}, planned for 2 threads, on 1 and 2`, async () => {
      const compiled = await compileModel(await parseModel(bytes, { fileName: 'plan.onnx' }), { threads: 2 });
      expect(compiled.summary.counters['kernel-plans']).toBe(1);
      // [version, path, threads, ...]
      expect(taskPlan(compiled.om, opType, name)?.slice(0, 3)).toEqual([1, path, 2]);
      for (const threads of [1, 2])
        await expectLikeOrt({
          label: `${label} t${threads}`,
          bytes,
          feeds: { x: randomFloats('float32', dims, random) },
          outputs: ['y'],
          tolerance: 1e-4,
          threads,
          compile: { threads: 2 },
        });
    });

  it('a MatMul or pooling plan that does not fit its task is TSGE-E7106, not a wrong result', async () => {
    const { om } = await compileModel(await parseModel(matmul(150), { fileName: 'mm.onnx' }), { threads: 2 });
    // the GEMM relabelled a GEMV (which runs up to 4 rows)
    const bad = withTaskAttrs(om, 'PackedMatMul', (attrs) => {
      const v = (attrs.matmul_plan as { value: number[] }).value;
      attrs.matmul_plan = { kind: 'ints', value: [v[0] as number, 1, ...v.slice(2)] };
    });
    await expect(loadAndRun(bad, { x: randomFloats('float32', [150, 96], random) })).rejects.toMatchObject({
      code: 'TSGE-E6007',
      cause: { code: 'TSGE-E7106' },
    });
    const { om: pooled } = await compileModel(
      await parseModel(pool('MaxPool', [{ name: 'kernel_shape', ints: [2, 2] }]), { fileName: 'pool.onnx' }),
      { threads: 2 },
    );
    // a plane reduction recorded for a 2×2 window
    const global = withTaskAttrs(pooled, 'MaxPool', (attrs) => {
      attrs.pool_plan = { kind: 'ints', value: [1, 1, 2, 0] };
    });
    await expect(loadAndRun(global, { x: randomFloats('float32', [1, 16, 30, 30], random) })).rejects.toMatchObject({
      code: 'TSGE-E6007',
      cause: { code: 'TSGE-E7106' },
    });
  });
});

describe('packed weights in the .om', () => {
  it('panels that do not hold the recorded columns are a coded error, not a wrong result', async () => {
    const nodes: NodeSpec[] = [constant('w', [64, 40]), { opType: 'MatMul', domain: '', inputs: ['x', 'w'], outputs: ['y'] }];
    const bytes = onnxModel(nodes, [f32('x', [3, 64])], [f32('y', [3, 40])], 13);
    const { om } = await compileModel(await parseModel(bytes, { fileName: 'mm.onnx' }));
    // n = 48 needs 6 panels; WEIGHTS holds 5
    const bad = withTaskAttrs(om, 'PackedMatMul', (attrs) => {
      attrs.n = { kind: 'int', value: 48 };
    });
    await expect(loadAndRun(bad, { x: randomFloats('float32', [3, 64], random) })).rejects.toMatchObject({
      code: 'TSGE-E6007',
      cause: { code: 'TSGE-E4003' },
    });
  });
});
