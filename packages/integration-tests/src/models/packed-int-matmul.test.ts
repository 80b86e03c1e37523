// MatMulInteger and QLinearMatMul with a constant B: the compiler stores B as int16 B − b_zero_point
// in the integer GEMM's panels on a tsge::PackedMatMulInteger with its tile plan, and the kernel
// reads them in place. Against onnxruntime-node (bytes and int32 sums must be identical), on one
// and two worker threads; a packed B or a plan that does not fit its node is a coded error.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { readOm, writeOm } from '@tsge/om';
import { describe, expect, it } from 'vitest';
import { expectLikeOrt, lcg } from '../transformer/ort-compare.fixture.js';
import { type NodeSpec, type Operand, onnxModel } from '../transformer/single-node-model.fixture.js';

type ByteType = 'uint8' | 'int8';
type OmModel = NonNullable<ReturnType<typeof readOm>['model']>;
type Attrs = Record<string, { kind: string; value: unknown }>;

const bytesOf = (type: ByteType, dims: number[], random: () => number): Int8Array | Uint8Array => {
  const v = Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => Math.floor(random() * 256) - (type === 'int8' ? 128 : 0));
  return type === 'int8' ? Int8Array.from(v) : Uint8Array.from(v);
};
const constant = (name: string, dims: number[], data: Float32Array | Uint8Array | Int8Array): NodeSpec => ({
  opType: 'Constant',
  domain: '',
  inputs: [],
  outputs: [name],
  attrs: [{ name: 'value', tensor: { dims, data } }],
});

interface Case {
  readonly name: string;
  readonly op: 'MatMulInteger' | 'QLinearMatMul';
  readonly type: ByteType;
  readonly a: number[];
  readonly n: number;
  /** b_zero_point one per column (MatMulInteger). */
  readonly perColumn?: boolean;
  readonly threads: number;
}

const cases: Case[] = [
  { name: 'MatMulInteger uint8 [64, 200]·[200, 96]', op: 'MatMulInteger', type: 'uint8', a: [64, 200], n: 96, threads: 2 },
  {
    name: 'MatMulInteger int8 batched [3, 17, 45]·[45, 70], per-column b zero point',
    op: 'MatMulInteger',
    type: 'int8',
    a: [3, 17, 45],
    n: 70,
    perColumn: true,
    threads: 1,
  },
  // K = 1024: 128-column panels, which the two threads' column tiles cross
  { name: 'QLinearMatMul uint8 [4, 1024]·[1024, 1000]', op: 'QLinearMatMul', type: 'uint8', a: [4, 1024], n: 1000, threads: 2 },
  { name: 'QLinearMatMul int8 [3, 17, 45]·[45, 70]', op: 'QLinearMatMul', type: 'int8', a: [3, 17, 45], n: 70, threads: 1 },
];

/** The model (A a graph input, B and its zero point Constants) and its feeds. */
function modelOf(c: Case): { bytes: Uint8Array; feeds: Record<string, HostTensor>; outDims: number[] } {
  const random = lcg(c.a.length * 31 + c.n);
  const k = c.a[c.a.length - 1] as number;
  const byte = (v: number) => (c.type === 'int8' ? Int8Array.of(v) : Uint8Array.of(v));
  const bz = c.perColumn
    ? bytesOf(c.type, [c.n], random).map((v) => (v >> 4) + (c.type === 'int8' ? 0 : 112))
    : byte(c.type === 'int8' ? 9 : 120);
  const nodes: NodeSpec[] = [
    constant('b', [k, c.n], bytesOf(c.type, [k, c.n], random)),
    constant('b_zero_point', c.perColumn ? [c.n] : [], bz),
  ];
  const feeds: Record<string, HostTensor> = {
    a: { type: c.type, dims: c.a, data: bytesOf(c.type, c.a, random) },
    a_zero_point: { type: c.type, dims: [], data: byte(c.type === 'int8' ? -3 : 131) },
  };
  const outDims = [...c.a.slice(0, -1), c.n];
  const type = c.op === 'MatMulInteger' ? 'int32' : c.type;
  if (c.op === 'MatMulInteger')
    nodes.push({ opType: c.op, domain: '', inputs: ['a', 'b', 'a_zero_point', 'b_zero_point'], outputs: ['y'] });
  else {
    nodes.push(
      constant('b_scale', [], Float32Array.of(0.015)),
      // sums of K products of about ±75² spread over the output range, some saturating
      constant('y_scale', [], Float32Array.of((0.02 * 0.015 * Math.sqrt(k) * 75 * 75) / 90)),
      constant('y_zero_point', [], byte(c.type === 'int8' ? 4 : 125)),
    );
    nodes.push({
      opType: c.op,
      domain: '',
      inputs: ['a', 'a_scale', 'a_zero_point', 'b', 'b_scale', 'b_zero_point', 'y_scale', 'y_zero_point'],
      outputs: ['y'],
    });
    feeds.a_scale = { type: 'float32', dims: [], data: Float32Array.of(0.02) };
  }
  const inputs: Operand[] = Object.entries(feeds).map(([name, t]) => ({ name, type: t.type as Operand['type'], dims: [...t.dims] }));
  return { bytes: onnxModel(nodes, inputs, [{ name: 'y', type, dims: outDims }]), feeds, outDims };
}

/** The attributes of the .om's PackedMatMulInteger tasks. */
function packedTasks(om: Uint8Array): { model: OmModel; attrs: Attrs[] } {
  const model = readOm(om).model as OmModel;
  const attrs: Attrs[] = [];
  for (const plan of model.taskInfo.plans)
    for (const stream of plan.streams)
      for (const task of stream.tasks)
        if (task.kind === 'kernel' && task.opType === 'PackedMatMulInteger' && task.attrs) attrs.push(task.attrs as Attrs);
  return { model, attrs };
}

describe('MatMulInteger / QLinearMatMul with a constant B packed at compile time, vs onnxruntime-node', () => {
  for (const c of cases)
    it(c.name, async () => {
      const { bytes, feeds } = modelOf(c);
      const { attrs } = packedTasks((await compileModel(await parseModel(bytes, { fileName: 'm.onnx' }), { threads: c.threads })).om);
      expect(attrs.length).toBe(1);
      expect(attrs[0]?.packed_weight?.value).toEqual([2, c.a[c.a.length - 1], c.n, expect.any(Number)]);
      expect(attrs[0]?.int_matmul_plan).toBeDefined();
      await expectLikeOrt({ label: c.name, bytes, feeds, outputs: ['y'], tolerance: 0, threads: c.threads });
    }, 60_000);

  it('a packed B or a plan that does not fit its node is a coded error, not a wrong result', async () => {
    const c = cases[2] as Case;
    const { bytes, feeds } = modelOf(c);
    const om = (await compileModel(await parseModel(bytes, { fileName: 'm.onnx' }), { threads: 2 })).om;
    const tampered = (edit: (a: Attrs) => void): Uint8Array => {
      const { model, attrs } = packedTasks(om);
      for (const a of attrs) edit(a);
      return writeOm({ ...model, modelName: model.header.modelName, target: model.header.target, flags: model.header.flags });
    };
    const runOnce = async (file: Uint8Array) => {
      const model = await loadModel(file, { threads: 2 });
      try {
        return await model.run(feeds);
      } finally {
        await model.release();
      }
    };
    // more columns than the panels hold
    const wide = tampered((a) => {
      const v = a.packed_weight?.value as number[];
      a.packed_weight = { kind: 'ints', value: [v[0], v[1], (v[2] as number) + 8, v[3]] };
    });
    await expect(runOnce(wide)).rejects.toMatchObject({ code: 'TSGE-E6007', cause: { code: 'TSGE-E4003' } });
    // a GEMM plan relabelled as the reference path, without tiles
    const short = tampered((a) => {
      a.int_matmul_plan = { kind: 'ints', value: [1, 0, 2, 0] };
    });
    await expect(runOnce(short)).rejects.toMatchObject({ code: 'TSGE-E6007', cause: { code: 'TSGE-E7106' } });
  }, 60_000);
});
