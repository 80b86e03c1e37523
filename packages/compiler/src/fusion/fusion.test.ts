import type { FusionPassV1, Graph, HostTensor, OpRegistry } from '@tsge/metadef';
import { GraphBuilder, attr, createOpDesc, createTensor } from '@tsge/metadef';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary, interpretGraph } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../pass-manager.js';
import { dumpIr } from '../test-dump.js';
import { randomFloats } from '../test-graphs.js';
import { builtinFusions } from './builtin.js';
import { registerFusedOps } from './fused-ops.js';
import { fusionAsPass, replaceMatchWith } from './matcher.js';
import { pattern } from './patterns.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);
registerFusedOps(ops, kernels);
const f32 = (dims: number[], seed = 1, scale = 1): HostTensor =>
  createTensor(
    'float32',
    dims,
    randomFloats(
      dims.reduce((a, b) => a * b, 1),
      seed,
    ).map((v) => v * scale),
  );
const scalar = (v: number): HostTensor => createTensor('float32', [], Float32Array.of(v));

/** Applies one fusion, checks the host outputs did not change, returns the applied count and dumps. */
function fuse(graph: Graph, fusion: FusionPassV1, feeds: Record<string, HostTensor>, tolerance = 4) {
  const before = dumpIr(graph);
  const expected = interpretGraph(graph, feeds, { kernels });
  const manager = new PassManager({ ops, target: 'js', level: 3 });
  manager.run(graph, [fusionAsPass(fusion)], 'test');
  expect(manager.diagnostics).toEqual([]);
  const actual = interpretGraph(graph, feeds, { kernels });
  for (const [output, value] of expected.entries()) {
    const e = value as HostTensor;
    const a = actual[output] as HostTensor;
    expect(a.dims).toEqual(e.dims);
    for (const [i, v] of (e.data as Float32Array).entries()) expect((a.data as Float32Array)[i]).toBeCloseTo(v, tolerance);
  }
  return { applied: manager.counters[fusion.name] ?? 0, text: `${before}--- after\n${dumpIr(graph)}` };
}

const byName = (name: string): FusionPassV1 => {
  const f = builtinFusions(ops, kernels).find((x) => x.name === name);
  if (!f) throw new Error(`no fusion ${name}`);
  return f;
};

describe('fusion (outputs equal before and after)', () => {
  it('conv-batchnorm folds into the weights, with and without bias', async () => {
    const b = new GraphBuilder('conv_bn', { ops });
    const x = b.input('x', 'float32', [1, 2, 5, 5]);
    const bnParams = (p: string, seed: number) =>
      [f32([3], seed, 0.5), f32([3], seed + 1), f32([3], seed + 2, 0.1), createTensor('float32', [3], Float32Array.of(0.5, 1, 2))].map(
        (t, i) => b.constant(`${p}${i}`, t),
      );
    const c1 = b.op('Conv', [x, b.constant('w1', f32([3, 2, 3, 3], 3))], { name: 'conv1', attrs: { pads: attr.ints([1, 1, 1, 1]) } });
    const n1 = b.op('BatchNormalization', [c1, ...bnParams('p', 10)], { name: 'bn1' });
    const c2 = b.op('Conv', [n1, b.constant('w2', f32([3, 3, 1, 1], 4)), b.constant('b2', f32([3], 5))], { name: 'conv2' });
    b.output(b.op('BatchNormalization', [c2, ...bnParams('q', 20)], { name: 'bn2', attrs: { epsilon: attr.float(0.001) } }), 'y');
    const r = fuse(b.build(), byName('conv-batchnorm'), { x: f32([1, 2, 5, 5], 9) });
    expect(r.applied).toBe(2);
    await expect(r.text).toMatchFileSnapshot('golden/conv-batchnorm.txt');
  });

  it('matmul-add-gemm', async () => {
    const b = new GraphBuilder('mm_add', { ops });
    const x = b.input('x', 'float32', [2, 4]);
    const mm = b.op('MatMul', [x, b.constant('w', f32([4, 3], 2))], { name: 'mm' });
    b.output(b.op('Add', [b.constant('bias', f32([3], 3)), mm], { name: 'add' }), 'y');
    const r = fuse(b.build(), byName('matmul-add-gemm'), { x: f32([2, 4], 5) });
    expect(r.applied).toBe(1);
    await expect(r.text).toMatchFileSnapshot('golden/matmul-add-gemm.txt');
  });

  it('gelu from Erf', async () => {
    const b = new GraphBuilder('gelu', { ops });
    const x = b.input('x', 'float32', [2, 5]);
    const erf = b.op('Erf', [b.op('Div', [x, b.constant('sqrt2', scalar(Math.SQRT2))], { name: 'div' })], { name: 'erf' });
    const plus = b.op('Add', [erf, b.constant('one', scalar(1))], { name: 'plus' });
    b.output(b.op('Mul', [b.op('Mul', [x, plus], { name: 'mul1' }), b.constant('half', scalar(0.5))], { name: 'mul2' }), 'y');
    const r = fuse(b.build(), byName('gelu'), { x: f32([2, 5], 6, 3) });
    expect(r.applied).toBe(1);
    await expect(r.text).toMatchFileSnapshot('golden/gelu.txt');
  });

  it('layer-norm from ReduceMean/Sub/Pow/Sqrt/Div', async () => {
    const b = new GraphBuilder('layer_norm', { ops });
    const x = b.input('x', 'float32', [2, 3, 8]);
    const axes = () => b.constant('axes', createTensor('int64', [1], BigInt64Array.of(-1n)));
    const mean = b.op('ReduceMean', [x, axes()], { name: 'mean' });
    const centered = b.op('Sub', [x, mean], { name: 'sub' });
    const sq = b.op('Pow', [centered, b.constant('two', scalar(2))], { name: 'pow' });
    const variance = b.op('ReduceMean', [sq, axes()], { name: 'var' });
    const std = b.op('Sqrt', [b.op('Add', [variance, b.constant('eps', scalar(1e-5))], { name: 'add_eps' })], { name: 'sqrt' });
    const normed = b.op('Div', [centered, std], { name: 'div' });
    const scaled = b.op('Mul', [normed, b.constant('gamma', f32([8], 7))], { name: 'scale' });
    b.output(b.op('Add', [scaled, b.constant('beta', f32([8], 8))], { name: 'shift' }), 'y');
    const r = fuse(b.build(), byName('layer-norm'), { x: f32([2, 3, 8], 9, 2) }, 3);
    expect(r.applied).toBe(1);
    await expect(r.text).toMatchFileSnapshot('golden/layer-norm.txt');
  });

  it('rms-norm (both forms) and swish', async () => {
    const b = new GraphBuilder('rms_swish', { ops });
    const x = b.input('x', 'float32', [2, 6]);
    const axes = () => b.constant('axes', createTensor('int64', [1], BigInt64Array.of(-1n)));
    const rms = (input: typeof x, reciprocal: boolean, tag: string) => {
      const ms = b.op('ReduceMean', [b.op('Pow', [input, b.constant('two', scalar(2))], { name: `pow${tag}` }), axes()], {
        name: `mean${tag}`,
      });
      const root = b.op('Sqrt', [b.op('Add', [ms, b.constant('eps', scalar(1e-6))], { name: `eps${tag}` })], { name: `sqrt${tag}` });
      const normed = reciprocal
        ? b.op('Mul', [input, b.op('Reciprocal', [root], { name: `rec${tag}` })], { name: `norm${tag}` })
        : b.op('Div', [input, root], { name: `norm${tag}` });
      return b.op('Mul', [normed, b.constant('gamma', f32([6], 3))], { name: `scale${tag}` });
    };
    const first = rms(x, false, 'a');
    const act = b.op('Mul', [first, b.op('Sigmoid', [first], { name: 'sig' })], { name: 'silu' });
    b.output(rms(act, true, 'b'), 'y');
    const graph = b.build();
    const feeds = { x: f32([2, 6], 4, 2) };
    expect(fuse(graph, byName('rms-norm'), feeds, 3).applied).toBe(2);
    await expect(dumpIr(graph)).toMatchFileSnapshot('golden/rms-norm-swish.txt');
  });

  it('fused-conv-activation and fused-gemm-activation into tsge ops', async () => {
    const b = new GraphBuilder('fused', { ops });
    const x = b.input('x', 'float32', [1, 2, 4, 4]);
    const conv = b.op('Conv', [x, b.constant('w', f32([3, 2, 3, 3], 2)), b.constant('cb', f32([3], 3))], {
      name: 'conv',
      attrs: { pads: attr.ints([1, 1, 1, 1]) },
    });
    const clipped = b.op('Clip', [conv, b.constant('lo', scalar(0)), b.constant('hi', scalar(0.6))], { name: 'clip' });
    const conv2 = b.op('Conv', [clipped, b.constant('w2', f32([2, 3, 1, 1], 4))], { name: 'conv2' });
    const conv3 = b.op('Conv', [b.op('Relu', [conv2], { name: 'relu' }), b.constant('w3', f32([2, 2, 1, 1], 8))], { name: 'conv3' });
    const flat = b.op('Flatten', [b.op('HardSwish', [conv3], { name: 'hswish' })], { name: 'flat' });
    const gemm = b.op('Gemm', [flat, b.constant('gw', f32([32, 4], 5)), b.constant('gb', f32([4], 6))], { name: 'gemm' });
    b.output(b.op('LeakyRelu', [gemm], { name: 'leaky', attrs: { alpha: attr.float(0.1) } }), 'y');
    const graph = b.build();
    const feeds = { x: f32([1, 2, 4, 4], 7) };
    const conv2act = fuse(graph, byName('fused-conv-activation'), feeds);
    expect(conv2act.applied).toBe(3);
    const gemmAct = fuse(graph, byName('fused-gemm-activation'), feeds);
    expect(gemmAct.applied).toBe(1);
    await expect(dumpIr(graph)).toMatchFileSnapshot('golden/fused-activation.txt');
  });

  it('fused-matmul-bias-activation for N-D MatMul', async () => {
    const b = new GraphBuilder('fused_matmul', { ops });
    const x = b.input('x', 'float32', [2, 3, 4]);
    const h = b.op('Add', [b.op('MatMul', [x, b.constant('w1', f32([4, 5], 2))], { name: 'mm1' }), b.constant('b1', f32([5], 3))], {
      name: 'add1',
    });
    const g = b.op('Gelu', [h], { name: 'gelu' });
    const y = b.op('Add', [b.constant('b2', f32([4], 5)), b.op('MatMul', [g, b.constant('w2', f32([5, 4], 4))], { name: 'mm2' })], {
      name: 'add2',
    });
    b.output(y, 'y');
    const graph = b.build();
    const r = fuse(graph, byName('fused-matmul-bias-activation'), { x: f32([2, 3, 4], 6) });
    expect(r.applied).toBe(2);
    await expect(r.text).toMatchFileSnapshot('golden/fused-matmul.txt');
  });

  it('rotary: Slices of x in halves, Neg, Concat, ·cos + ·sin into tsge::ApplyRotary', async () => {
    const b = new GraphBuilder('rotary', { ops });
    const x = b.input('x', 'float32', [2, 3, 8]);
    const i64 = (name: string, v: bigint) => b.constant(name, createTensor('int64', [1], BigInt64Array.of(v)));
    const half = (name: string, from: bigint, to: bigint) =>
      b.op('Slice', [x, i64(`${name}_starts`, from), i64(`${name}_ends`, to), i64(`${name}_axes`, -1n)], { name });
    const x1 = half('x1', 0n, 4n);
    const x2 = half('x2', 4n, 9223372036854775807n);
    const rotated = b.op('Concat', [b.op('Neg', [x2], { name: 'neg' }), x1], { name: 'concat', attrs: { axis: attr.int(-1) } });
    const cos = b.constant('cos', f32([3, 8], 2));
    const sin = b.constant('sin', f32([3, 8], 3));
    const sum = b.op('Add', [b.op('Mul', [cos, x], { name: 'xcos' }), b.op('Mul', [rotated, sin], { name: 'rsin' })], { name: 'sum' });
    b.output(sum, 'y');
    const r = fuse(b.build(), byName('rotary'), { x: f32([2, 3, 8], 4) });
    expect(r.applied).toBe(1);
    await expect(r.text).toMatchFileSnapshot('golden/rotary.txt');
  });

  it('runs a user FusionPassV1 through the matcher, leaving shared intermediates alone', () => {
    const doubleRelu = pattern('double-relu', 1, (op, x) => [op('Relu', [op('Relu', [x[0]], 'inner')], 'outer')]);
    const custom: FusionPassV1 = {
      specVersion: 'v1',
      name: 'double-relu',
      level: 1,
      patterns: () => [doubleRelu],
      replace(m, graph) {
        const node = graph.addNode(
          createOpDesc({ name: 'single_relu', type: 'Relu', outputDescs: [...(m.outputs[0]?.node.opDesc.outputDescs ?? [])] }),
          { inputs: 1, outputs: 1 },
        );
        return [replaceMatchWith(graph, m, node, [m.inputs[0]])];
      },
    };
    const b = new GraphBuilder('custom', { ops });
    const x = b.input('x', 'float32', [3]);
    const inner = b.op('Relu', [x], { name: 'r1' });
    b.output(b.op('Relu', [inner], { name: 'r2' }), 'y');
    const shared = b.op('Relu', [x], { name: 'r3' });
    b.output(b.op('Relu', [shared], { name: 'r4' }), 'z');
    b.output(shared, 'w');
    const graph = b.build();
    const r = fuse(graph, custom, { x: createTensor('float32', [3], Float32Array.of(-1, 0, 2)) });
    expect(r.applied).toBe(1);
    expect(graph.findNode('r3')).toBeDefined();
    expect(graph.findNode('single_relu')?.producer(0)?.node.name).toBe('x');
  });
});
