// Generated Conv epilogues (automatic fusion): an elementwise chain that reads a Conv's output (its
// only reader) becomes the Conv's epilogue, run by each conv tile over its own output block, and a
// FusedConv's activation becomes a description too. Every conv path (im2col GEMM, direct and
// pointwise, depthwise, other ranks) against onnxruntime-node, on one and two threads.
import { compileModel, parseModel } from '@tsge/ge';
import { readOm } from '@tsge/om';
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
    // an input broadcast along H only is not one run per channel: stays out of the Conv
    name: 'broadcast along H only stays a separate kernel',
    nodes: [...conv('x', 8, 24, 3), op('Mul', ['conv', 'hrow'], ['m']), op('Relu', ['m'], ['y'])],
    inputs: [f32('x', [1, 8, 12, 10]), f32('hrow', [1, 1, 12, 1])],
    output: f32('y', [1, 24, 12, 10]),
    absorbed: false,
  },
];

describe('generated Conv epilogues', () => {
  for (const c of cases)
    it(c.name, async () => {
      const bytes = onnxModel(c.nodes, c.inputs, [c.output], 17);
      const compiled = await compileModel(await parseModel(bytes, { fileName: 'epilogue.onnx' }));
      const model = readOm(compiled.om).model;
      const nodes = model?.graph.nodes ?? [];
      const convs = nodes.filter((n) => n.type === 'FusedConv' && n.opDesc.attrs.get('kernel')?.kind === 'int');
      expect(model?.kernelDescriptions?.length ?? 0).toBeGreaterThan(0);
      const others = nodes.filter((n) => !['Data', 'NetOutput', 'Const', 'FusedConv'].includes(n.type)).map((n) => n.type);
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

  it('the same model compiled without automatic fusion computes the same (O2 baseline)', async () => {
    const c = cases[0] as Case;
    const bytes = onnxModel(c.nodes, c.inputs, [c.output], 17);
    const plain = await compileModel(await parseModel(bytes, { fileName: 'epilogue.onnx' }), {
      optimizationSwitch: { 'auto-fusion': false },
    });
    expect(readOm(plain.om).model?.kernelDescriptions?.length).toBe(0);
  });
});
