import type { FusionPassV1, Graph, HostTensor, OpRegistry, Value } from '@tsge/metadef';
import { GraphBuilder, attr, createTensor } from '@tsge/metadef';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary, interpretGraph } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../pass-manager.js';
import { dumpIr } from '../test-dump.js';
import { randomFloats } from '../test-graphs.js';
import { builtinFusions } from './builtin.js';
import { perChannel } from './conv-affine.js';
import { fusionAsPass } from './matcher.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);
const byName = (name: string): FusionPassV1 => {
  const f = builtinFusions(ops, kernels).find((x) => x.name === name);
  if (!f) throw new Error(`no fusion ${name}`);
  return f;
};
const f32 = (dims: number[], seed: number): HostTensor =>
  createTensor(
    'float32',
    dims,
    randomFloats(
      dims.reduce((a, b) => a * b, 1),
      seed,
    ),
  );
const SHAPE = [1, 2, 5, 5];

/** Runs fusions, checks the outputs are unchanged, returns the op types left. */
function fuse(graph: Graph, fusions: readonly FusionPassV1[]): string[] {
  const feeds = { x: f32(SHAPE, 3) };
  const expected = interpretGraph(graph, feeds, { kernels });
  const manager = new PassManager({ ops, target: 'js', level: 3 });
  manager.run(graph, fusions.map(fusionAsPass), 'test');
  expect(manager.diagnostics).toEqual([]);
  const actual = interpretGraph(graph, feeds, { kernels });
  for (const [output, value] of expected.entries()) {
    const e = value as HostTensor;
    const a = actual[output] as HostTensor;
    expect(a.dims).toEqual(e.dims);
    for (const [i, v] of (e.data as Float32Array).entries()) expect((a.data as Float32Array)[i]).toBeCloseTo(v, 5);
  }
  return graph.nodes.map((n) => n.type).filter((t) => t !== 'Data' && t !== 'NetOutput' && t !== 'Const');
}

/** Conv (3 output channels, optional bias) then `after` applied to its result. */
function convThen(after: (b: GraphBuilder, conv: Value) => Value, withBias = true): Graph {
  const b = new GraphBuilder('conv_affine', { ops });
  const x = b.input('x', 'float32', SHAPE);
  const inputs = [x, b.constant('w', f32([3, 2, 3, 3], 4))];
  if (withBias) inputs.push(b.constant('b', f32([3], 5)));
  const conv = b.op('Conv', inputs, { name: 'conv', attrs: { pads: attr.ints([1, 1, 1, 1]) } });
  b.output(after(b, conv), 'y');
  return b.build();
}
const scalar = (v: number, dims: number[] = []) => createTensor('float32', dims, Float32Array.of(v));

describe('conv-affine', () => {
  it('folds a scalar Mul then Add (a learnable affine block) into the Conv', async () => {
    const graph = convThen((b, conv) =>
      b.op('Add', [b.op('Mul', [b.constant('s', scalar(0.7)), conv], { name: 'scale' }), b.constant('t', scalar(-0.2))], { name: 'shift' }),
    );
    const before = dumpIr(graph);
    expect(fuse(graph, [byName('conv-affine')])).toEqual(['Conv']);
    await expect(`${before}--- after\n${dumpIr(graph)}`).toMatchFileSnapshot('golden/conv-affine.txt');
  });

  it('folds per-channel constants of shape [C,1,1] and [1,C,1,1], with and without a bias', () => {
    const perChannelMul = (withBias: boolean, dims: number[]) =>
      convThen(
        (b, conv) =>
          b.op('Add', [conv, b.constant('t', createTensor('float32', dims, Float32Array.of(0.1, 0.2, 0.3)))], {
            name: 'shift',
          }),
        withBias,
      );
    expect(fuse(perChannelMul(true, [3, 1, 1]), [byName('conv-affine')])).toEqual(['Conv']);
    expect(fuse(perChannelMul(false, [1, 3, 1, 1]), [byName('conv-affine')])).toEqual(['Conv']);
    const mul = convThen(
      (b, conv) => b.op('Mul', [conv, b.constant('s', createTensor('float32', [3, 1, 1], Float32Array.of(2, -1, 0.5)))], { name: 's' }),
      false,
    );
    expect(fuse(mul, [byName('conv-affine')])).toEqual(['Conv']);
  });

  it.each([
    ['a constant over the last axis', [1, 1, 1, 5]],
    ['a constant that broadcasts to a larger rank', [1, 1, 1, 1, 1]],
    ['a constant over the height axis', [1, 1, 5, 1]],
    ['a full-size constant', [1, 3, 5, 5]],
  ])('leaves the Conv alone with %s', (_label, dims) => {
    const graph = convThen((b, conv) => {
      const n = dims.reduce((a, c) => a * c, 1);
      return b.op('Add', [conv, b.constant('t', n === 1 ? scalar(0.5, dims) : f32(dims, 6))], { name: 'shift' });
    });
    expect(fuse(graph, [byName('conv-affine')])).toEqual(['Conv', 'Add']);
  });

  it('leaves the Conv alone when its result has another consumer or the operand is not constant', () => {
    const shared = convThen((b, conv) =>
      b.op('Add', [b.op('Mul', [conv, b.constant('s', scalar(2))], { name: 'm' }), conv], { name: 'sum' }),
    );
    expect(fuse(shared, [byName('conv-affine')])).toEqual(['Conv', 'Mul', 'Add']);
    const dynamic = convThen((b, conv) => b.op('Mul', [conv, b.op('Relu', [conv], { name: 'r' })], { name: 'm' }));
    expect(fuse(dynamic, [byName('conv-affine')])).toEqual(['Conv', 'Relu', 'Mul']);
  });

  it('keeps Clip(Conv + 3, 0, 6) / 6 as a HardSigmoid of the Conv when all fusions run', () => {
    const graph = convThen((b, conv) => {
      const relu6 = b.op(
        'Clip',
        [b.op('Add', [conv, b.constant('three', scalar(3))], { name: 'a' }), b.constant('z', scalar(0)), b.constant('s', scalar(6))],
        {
          name: 'c',
        },
      );
      return b.op('Div', [relu6, b.constant('k', scalar(6))], { name: 'd' });
    });
    expect(fuse(graph, builtinFusions(ops, kernels))).toEqual(['FusedConv']);
    expect(graph.nodes.find((n) => n.type === 'FusedConv')?.opDesc.attrs.get('activation')?.value).toBe('HardSigmoid');
  });

  it('folds a bias Add and a BatchNormalization after ConvTranspose, grouped or not', () => {
    for (const group of [1, 2]) {
      const b = new GraphBuilder('deconv', { ops });
      const x = b.input('x', 'float32', [1, 4, 3, 3]);
      const w = b.constant('w', f32([4, 6 / group, 2, 2], 7));
      const deconv = b.op('ConvTranspose', [x, w], { name: 'deconv', attrs: { strides: attr.ints([2, 2]), group: attr.int(group) } });
      const biased = b.op('Add', [deconv, b.constant('bias', f32([1, 6, 1, 1], 8))], { name: 'bias' });
      const bn = ['scale', 'b', 'mean'].map((n, i) => b.constant(n, f32([6], 9 + i)));
      const variance = b.constant('var', createTensor('float32', [6], Float32Array.of(0.5, 1, 2, 0.25, 1.5, 3)));
      const normed = b.op('BatchNormalization', [biased, ...bn, variance], { name: 'bn' });
      b.output(b.op('Mul', [normed, b.constant('s', f32([6, 1, 1], 12))], { name: 'scale_out' }), 'y');
      const graph = b.build();
      const feeds = { x: f32([1, 4, 3, 3], 13) };
      const expected = interpretGraph(graph, feeds, { kernels })[0] as HostTensor;
      const manager = new PassManager({ ops, target: 'js', level: 3 });
      manager.run(graph, [fusionAsPass(byName('conv-affine'))], 'test');
      expect(manager.counters['conv-affine']).toBe(3);
      const actual = interpretGraph(graph, feeds, { kernels })[0] as HostTensor;
      for (const [i, v] of (expected.data as Float32Array).entries()) expect((actual.data as Float32Array)[i]).toBeCloseTo(v, 4);
      expect(graph.nodes.map((n) => n.type).filter((t) => t !== 'Data' && t !== 'NetOutput' && t !== 'Const')).toEqual(['ConvTranspose']);
    }
  });

  it('leaves a BatchNormalization in training mode after ConvTranspose alone', () => {
    const b = new GraphBuilder('deconv_training', { ops });
    const x = b.input('x', 'float32', [1, 2, 3, 3]);
    const deconv = b.op('ConvTranspose', [x, b.constant('w', f32([2, 3, 2, 2], 7))], { name: 'deconv' });
    const params = ['scale', 'b', 'mean'].map((n, i) => b.constant(n, f32([3], 9 + i)));
    const variance = b.constant('var', createTensor('float32', [3], Float32Array.of(1, 1, 1)));
    b.output(b.op('BatchNormalization', [deconv, ...params, variance], { name: 'bn', attrs: { training_mode: attr.int(1) } }), 'y');
    const graph = b.build();
    const manager = new PassManager({ ops, target: 'js', level: 3 });
    manager.run(graph, [fusionAsPass(byName('conv-affine'))], 'test');
    expect(manager.counters['conv-affine'] ?? 0).toBe(0);
  });

  it('reads per-channel values only from broadcastable shapes', () => {
    expect(perChannel(scalar(2, [1]), 4, 3)).toEqual(Float32Array.of(2, 2, 2));
    expect(perChannel(createTensor('float32', [3, 1], Float32Array.of(1, 2, 3)), 3, 3)).toEqual(Float32Array.of(1, 2, 3));
    expect(perChannel(createTensor('float32', [3, 1], Float32Array.of(1, 2, 3)), 4, 3)).toBeUndefined();
    expect(perChannel(createTensor('float32', [3], Float32Array.of(1, 2, 3)), 2, 3)).toEqual(Float32Array.of(1, 2, 3));
    expect(perChannel(createTensor('int32', [], Int32Array.of(1)), 4, 3)).toBeUndefined();
  });
});
