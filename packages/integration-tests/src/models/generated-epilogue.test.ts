// Generated epilogues (automatic fusion): an elementwise chain that reads a Conv's or a constant-B
// MatMul's output (its only reader) becomes that op's epilogue, run by each tile over its own output
// block, and a FusedConv's activation (a FusedMatMul's bias and activation) becomes a description
// too. Conv paths (im2col GEMM, direct, pointwise, depthwise) and PackedMatMul's (GEMV, GEMM on
// panels) against onnxruntime-node, on one and two threads.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { KernelDescription } from '@tsge/metadef';
import { readOm, writeOm } from '@tsge/om';
import { describe, expect, it } from 'vitest';
import { expectLikeOrt, lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { type Attr, type NodeSpec, type Operand, onnxModel } from '../transformer/single-node-model.fixture.js';

const random = lcg(77);
const f32 = (name: string, dims: readonly number[]): Operand => ({ name, type: 'float32', dims });
const constant = (name: string, dims: number[], scale = 1): NodeSpec => ({
  opType: 'Constant',
  domain: '',
  inputs: [],
  outputs: [name],
  attrs: [{ name: 'value', tensor: { dims, data: (randomFloats('float32', dims, random).data as Float32Array).map((v) => v * scale) } }],
});
const scalar = (name: string, value: number): NodeSpec => ({
  opType: 'Constant',
  domain: '',
  inputs: [],
  outputs: [name],
  attrs: [{ name: 'value', tensor: { dims: [], data: Float32Array.of(value) } }],
});
const op = (opType: string, inputs: string[], outputs: string[], attrs: Attr[] = []): NodeSpec => ({
  opType,
  domain: '',
  inputs,
  outputs,
  attrs,
});

interface Case {
  readonly name: string;
  readonly nodes: NodeSpec[];
  readonly inputs: Operand[];
  readonly output: Operand;
  /** Whether the chain after the Conv is expected to become its epilogue. */
  readonly absorbed: boolean;
  /** The op that carries the epilogue in the .om. */
  readonly host?: string;
}

/** y0 = MatMul(x, W[k, n]) + b (Constants). */
function matmul(x: string, k: number, n: number, out = 'mm'): NodeSpec[] {
  return [
    constant(`${out}_w`, [k, n], 0.2),
    constant(`${out}_b`, [n]),
    op('MatMul', [x, `${out}_w`], [`${out}_h`]),
    op('Add', [`${out}_h`, `${out}_b`], [out]),
  ];
}

/** Conv y = Conv(x, w, b) with `c` output channels of a k×k filter (pads keep the size, `group`). */
function conv(x: string, inC: number, c: number, k: number, group = 1, out = 'conv'): NodeSpec[] {
  return [
    constant(`${out}_w`, [c, inC / group, k, k], 0.3),
    constant(`${out}_b`, [c]),
    op(
      'Conv',
      [x, `${out}_w`, `${out}_b`],
      [out],
      [
        { name: 'kernel_shape', ints: [k, k] },
        { name: 'pads', ints: [k >> 1, k >> 1, k >> 1, k >> 1] },
        { name: 'group', int: group },
      ],
    ),
  ];
}

const cases: Case[] = [
  {
    // im2col GEMM (96 output channels), residual Add + Relu: an epilogue with one more input
    name: 'im2col 3×3 + residual Add + Relu',
    nodes: [...conv('x', 16, 96, 3), op('Add', ['conv', 'r'], ['s']), op('Relu', ['s'], ['y'])],
    inputs: [f32('x', [2, 16, 20, 24]), f32('r', [2, 96, 20, 24])],
    output: f32('y', [2, 96, 20, 24]),
    absorbed: true,
  },
  {
    // direct path (few channels), per-channel scale then swish x·sigmoid(x)
    name: 'direct 3×3 + per-channel Mul + swish',
    nodes: [
      ...conv('x', 8, 24, 3),
      constant('s', [1, 24, 1, 1]),
      op('Mul', ['conv', 's'], ['m']),
      op('Sigmoid', ['m'], ['g']),
      op('Mul', ['m', 'g'], ['y']),
    ],
    inputs: [f32('x', [1, 8, 33, 35])],
    output: f32('y', [1, 24, 33, 35]),
    absorbed: true,
  },
  {
    // pointwise, read in place; HardSwish as a FusedConv activation, then a scalar Add
    name: 'pointwise + HardSwish + scalar Add',
    nodes: [...conv('x', 32, 16, 1), op('HardSwish', ['conv'], ['h']), scalar('one', 1), op('Add', ['h', 'one'], ['y'])],
    inputs: [f32('x', [1, 32, 28, 28])],
    output: f32('y', [1, 16, 28, 28]),
    absorbed: true,
  },
  {
    // depthwise 3×3, Relu6 (Clip) then a residual Add: the depthwise tile runs the whole epilogue
    name: 'depthwise 3×3 + Clip(0, 6) + residual Add',
    nodes: [
      ...conv('x', 32, 32, 3, 32),
      scalar('zero', 0),
      scalar('six', 6),
      op('Clip', ['conv', 'zero', 'six'], ['c']),
      op('Add', ['c', 'x'], ['y']),
    ],
    inputs: [f32('x', [1, 32, 17, 19])],
    output: f32('y', [1, 32, 17, 19]),
    absorbed: true,
  },
  {
    // a Conv's activation alone (Relu) becomes a description the GEMM store applies as its clamp
    name: 'im2col 5×5 + Relu alone',
    nodes: [...conv('x', 3, 40, 5), op('Relu', ['conv'], ['y'])],
    inputs: [f32('x', [1, 3, 30, 30])],
    output: f32('y', [1, 40, 30, 30]),
    absorbed: true,
  },
  {
    // decode rows (GEMV on panels): bias, then a residual Add
    name: 'MatMul decode + bias + residual Add',
    nodes: [...matmul('x', 64, 48), op('Add', ['mm', 'r'], ['y'])],
    inputs: [f32('x', [1, 1, 64]), f32('r', [1, 1, 48])],
    output: f32('y', [1, 1, 48]),
    absorbed: true,
    host: 'PackedMatMul',
  },
  {
    // many rows (GEMM on panels), a partial last panel: bias, swish, residual
    name: 'MatMul 70 rows + bias + swish + residual Add',
    nodes: [...matmul('x', 96, 61), op('Sigmoid', ['mm'], ['g']), op('Mul', ['mm', 'g'], ['s']), op('Add', ['s', 'r'], ['y'])],
    inputs: [f32('x', [2, 70, 96]), f32('r', [2, 70, 61])],
    output: f32('y', [2, 70, 61]),
    absorbed: true,
    host: 'PackedMatMul',
  },
  {
    // bias and Relu alone: the FusedMatMul's own epilogue becomes a description
    name: 'MatMul + bias + Relu alone',
    nodes: [...matmul('x', 40, 100), op('Relu', ['mm'], ['y'])],
    inputs: [f32('x', [1, 3, 40])],
    output: f32('y', [1, 3, 100]),
    absorbed: true,
    host: 'PackedMatMul',
  },
  {
    // an input broadcast along H only is not one run per channel: stays out of the Conv
    name: 'broadcast along H only stays a separate kernel',
    nodes: [...conv('x', 8, 24, 3), op('Mul', ['conv', 'hrow'], ['m']), op('Relu', ['m'], ['y'])],
    inputs: [f32('x', [1, 8, 12, 10]), f32('hrow', [1, 1, 12, 1])],
    output: f32('y', [1, 24, 12, 10]),
    absorbed: false,
  },
];

describe('generated epilogues', () => {
  for (const c of cases)
    it(c.name, async () => {
      const bytes = onnxModel(c.nodes, c.inputs, [c.output], 17);
      const compiled = await compileModel(await parseModel(bytes, { fileName: 'epilogue.onnx' }));
      const model = readOm(compiled.om).model;
      const nodes = model?.graph.nodes ?? [];
      const host = c.host ?? 'FusedConv';
      const convs = nodes.filter((n) => n.type === host && n.opDesc.attrs.get('kernel')?.kind === 'int');
      expect(model?.kernelDescriptions?.length ?? 0).toBeGreaterThan(0);
      const others = nodes.filter((n) => !['Data', 'NetOutput', 'Const', host].includes(n.type)).map((n) => n.type);
      if (c.absorbed) {
        // the Conv carries the generated kernel; nothing of the chain is left behind
        expect(convs).toHaveLength(1);
        expect(others).toEqual([]);
      } else {
        expect(convs).toHaveLength(0);
        expect(others).toEqual(['Conv', 'FusedElementwise']);
      }
      for (const threads of [1, 2])
        await expectLikeOrt({
          label: `${c.name} t${threads}`,
          bytes,
          feeds: Object.fromEntries(c.inputs.map((i) => [i.name, randomFloats('float32', i.dims as number[], random)])),
          outputs: ['y'],
          tolerance: 1e-4,
          threads,
        });
    });

  it('an epilogue whose description does not fit its node is a coded error, not a wrong result', async () => {
    const residual = cases[0] as Case;
    const alone = cases.find((c) => c.name.includes('Relu alone') && !c.host) as Case;
    const compileCase = async (c: Case) =>
      (await compileModel(await parseModel(onnxModel(c.nodes, c.inputs, [c.output], 17), { fileName: 'e.onnx' }))).om;
    const model = readOm(await compileCase(residual)).model as NonNullable<ReturnType<typeof readOm>['model']>;
    const other = readOm(await compileCase(alone)).model?.kernelDescriptions?.[0];
    expect(other).toBeDefined();
    // the residual Conv's epilogue swapped for one with a single input over another shape
    const swapped = writeOm({
      ...model,
      modelName: model.header.modelName,
      target: model.header.target,
      flags: model.header.flags,
      kernelDescriptions: (model.kernelDescriptions ?? []).map(() => other as KernelDescription),
    });
    const loaded = await loadModel(swapped, { threads: 1 });
    try {
      const feeds = Object.fromEntries(residual.inputs.map((i) => [i.name, randomFloats('float32', i.dims as number[], random)]));
      const error = await loaded.run(feeds).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message: string },
      );
      // the kernel failure names the node, and carries the description's own code and reason
      expect(error?.code).toBe('TSGE-E6007');
      expect(error?.message).toMatch(/TSGE-E7103.*Conv_2_epilogue.*2 inputs, the description has 1/);
    } finally {
      await loaded.release();
    }
  });

  it('the same model compiled without automatic fusion computes the same (O2 baseline)', async () => {
    const c = cases[0] as Case;
    const bytes = onnxModel(c.nodes, c.inputs, [c.output], 17);
    const plain = await compileModel(await parseModel(bytes, { fileName: 'epilogue.onnx' }), {
      optimizationSwitch: { 'auto-fusion': false },
    });
    expect(readOm(plain.om).model?.kernelDescriptions?.length).toBe(0);
  });
});
