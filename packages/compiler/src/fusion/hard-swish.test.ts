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
import { registerFusedOps } from './fused-ops.js';
import { hardSigmoidFusion, hardSwishFusion } from './hard-swish.js';
import { fusionAsPass } from './matcher.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);
registerFusedOps(ops, kernels);
const byName = (name: string): FusionPassV1 => {
  const f = builtinFusions(ops, kernels).find((x) => x.name === name);
  if (!f) throw new Error(`no fusion ${name}`);
  return f;
};
const hardSigmoid = byName('hard-sigmoid');
const hardSwish = byName('hard-swish');

const SHAPE = [1, 3, 4, 4];
// values around the kinks at -3 and 3
const input = (): HostTensor =>
  createTensor(
    'float32',
    SHAPE,
    randomFloats(48, 11).map((v) => v * 5),
  );
const scalar = (v: number, dims: number[] = []): HostTensor => createTensor('float32', dims, Float32Array.of(v));

interface Spec {
  three?: number;
  zero?: number;
  six?: number;
  /** Div by this (default 6) or, with `multiply`, Mul by it (default 1/6). */
  divisor?: number;
  multiply?: boolean;
  /** Swap the operands of the commutative Add and Mul. */
  swapped?: boolean;
  /** Shape of the constant 3 (default scalar). */
  threeDims?: number[];
}

/** y = x * Clip(x + 3, 0, 6) / 6 (or the hard-sigmoid part alone) built with the given constants. */
function build(name: string, spec: Spec, body: (b: GraphBuilder, x: Value, relu6: Value, scale: (v: Value) => Value) => Value): Graph {
  const b = new GraphBuilder(name, { ops });
  const x = b.input('x', 'float32', SHAPE);
  const three = b.constant('three', scalar(spec.three ?? 3, spec.threeDims));
  const add = b.op('Add', spec.swapped ? [three, x] : [x, three], { name: 'add' });
  const relu6 = b.op('Clip', [add, b.constant('zero', scalar(spec.zero ?? 0)), b.constant('six', scalar(spec.six ?? 6))], { name: 'clip' });
  const scale = (v: Value) =>
    spec.multiply
      ? b.op(
          'Mul',
          spec.swapped ? [b.constant('k', scalar(spec.divisor ?? 1 / 6)), v] : [v, b.constant('k', scalar(spec.divisor ?? 1 / 6))],
          {
            name: 'scale',
          },
        )
      : b.op('Div', [v, b.constant('k', scalar(spec.divisor ?? 6))], { name: 'scale' });
  b.output(body(b, x, relu6, scale), 'y');
  return b.build();
}

const swishLast = (spec: Spec) =>
  build('hswish', spec, (b, x, relu6, scale) => scale(b.op('Mul', spec.swapped ? [relu6, x] : [x, relu6], { name: 'mul' })));
const sigmoidOnly = (spec: Spec) => build('hsigmoid', spec, (_b, _x, relu6, scale) => scale(relu6));

/** Runs fusions in order, checks outputs are unchanged, returns applied counts and the graph's op types. */
function fuse(graph: Graph, fusions: readonly FusionPassV1[]) {
  const feeds = { x: input() };
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
  const types = graph.nodes.map((n) => n.type).filter((t) => t !== 'Data' && t !== 'NetOutput' && t !== 'Const');
  return { counters: manager.counters, types };
}

describe('hard-swish and hard-sigmoid fusions', () => {
  it('fuse x * Clip(x + 3, 0, 6) / 6 into HardSwish', async () => {
    const graph = swishLast({});
    const before = dumpIr(graph);
    const r = fuse(graph, [hardSigmoid, hardSwish]);
    expect(r.counters['hard-swish']).toBe(1);
    expect(r.types).toEqual(['HardSwish']);
    await expect(`${before}--- after\n${dumpIr(graph)}`).toMatchFileSnapshot('golden/hard-swish.txt');
  });

  it.each([
    ['Mul by 1/6', { multiply: true }],
    ['swapped operands', { swapped: true }],
    ['Mul by 1/6, swapped operands', { multiply: true, swapped: true }],
    ['a rank-4 one-element constant', { threeDims: [1, 1, 1, 1] }],
  ])('fuse the variant with %s', (_label, spec: Spec) => {
    const r = fuse(swishLast(spec), [hardSigmoid, hardSwish]);
    expect(r.types).toEqual(['HardSwish']);
  });

  it('fuse (x / 6) * Clip(x + 3, 0, 6), also as (1/6 * x) * Clip(3 + x, 0, 6)', () => {
    const graph = build('scaled_input', {}, (b, x, relu6, scale) => b.op('Mul', [scale(x), relu6], { name: 'mul' }));
    expect(fuse(graph, [hardSigmoid, hardSwish]).types).toEqual(['HardSwish']);
    // the matcher must backtrack: binding x to the 1/6 first fits Mul but not Add(3, x)
    const swapped = build('scaled_input_swapped', { multiply: true, swapped: true }, (b, x, relu6, scale) =>
      b.op('Mul', [scale(x), relu6], { name: 'mul' }),
    );
    expect(fuse(swapped, [hardSigmoid, hardSwish]).types).toEqual(['HardSwish']);
  });

  it('fuse x * (Clip(x + 3, 0, 6) / 6) through HardSigmoid', () => {
    const graph = build('inner_scale', { multiply: true }, (b, x, relu6, scale) => b.op('Mul', [scale(relu6), x], { name: 'mul' }));
    const r = fuse(graph, [hardSigmoid, hardSwish]);
    expect(r.counters).toMatchObject({ 'hard-sigmoid': 1, 'hard-swish': 1 });
    expect(r.types).toEqual(['HardSwish']);
  });

  it('fuse x * HardSigmoid(x, 1/6, 0.5) but not other HardSigmoid parameters', () => {
    const make = (alpha: number) => {
      const b = new GraphBuilder('hsig_mul', { ops });
      const x = b.input('x', 'float32', SHAPE);
      const hs = b.op('HardSigmoid', [x], { name: 'hs', attrs: { alpha: attr.float(alpha), beta: attr.float(0.5) } });
      b.output(b.op('Mul', [hs, x], { name: 'mul' }), 'y');
      return b.build();
    };
    expect(fuse(make(1 / 6), [hardSwish]).types).toEqual(['HardSwish']);
    expect(fuse(make(0.2), [hardSwish]).types).toEqual(['HardSigmoid', 'Mul']);
  });

  it('fuse Clip(x + 3, 0, 6) / 6 into HardSigmoid(1/6, 0.5)', async () => {
    const graph = sigmoidOnly({ multiply: true });
    const r = fuse(graph, [hardSigmoid, hardSwish]);
    expect(r.types).toEqual(['HardSigmoid']);
    expect(fuse(sigmoidOnly({}), [hardSigmoid]).types).toEqual(['HardSigmoid']);
    await expect(dumpIr(graph)).toMatchFileSnapshot('golden/hard-sigmoid.txt');
  });

  it.each([
    ['x + 2.9', { three: 2.9 }],
    ['a lower bound of -1', { zero: -1 }],
    ['an upper bound of 5', { six: 5 }],
    ['a Div by 5', { divisor: 5 }],
    ['a Mul by 0.17', { multiply: true, divisor: 0.17 }],
    ['a Mul by 6', { multiply: true, divisor: 6 }],
    ['a constant of higher rank than x', { threeDims: [1, 1, 1, 1, 1] }],
  ])('leave the graph alone with %s', (_label, spec: Spec) => {
    const r = fuse(swishLast(spec), [hardSigmoid, hardSwish]);
    expect(r.types).toEqual(['Add', 'Clip', 'Mul', spec.multiply ? 'Mul' : 'Div']);
    expect(fuse(sigmoidOnly(spec), [hardSigmoid]).types).toEqual(['Add', 'Clip', spec.multiply ? 'Mul' : 'Div']);
  });

  it('leave a per-channel constant alone, even when every value is 3', () => {
    const b = new GraphBuilder('channels', { ops });
    const x = b.input('x', 'float32', SHAPE);
    const add = b.op('Add', [x, b.constant('three', createTensor('float32', [1, 3, 1, 1], Float32Array.of(3, 3, 3)))], { name: 'add' });
    const relu6 = b.op('Clip', [add, b.constant('zero', scalar(0)), b.constant('six', scalar(6))], { name: 'clip' });
    b.output(b.op('Div', [b.op('Mul', [x, relu6], { name: 'mul' }), b.constant('k', scalar(6))], { name: 'scale' }), 'y');
    expect(fuse(b.build(), [hardSigmoid, hardSwish]).types).toEqual(['Add', 'Clip', 'Mul', 'Div']);
  });

  it('leave 6 / (x * Clip(x + 3, 0, 6)) alone', () => {
    const graph = build('reversed', {}, (b, x, relu6) =>
      b.op('Div', [b.constant('k', scalar(6)), b.op('Mul', [x, relu6], { name: 'mul' })], { name: 'scale' }),
    );
    expect(fuse(graph, [hardSigmoid, hardSwish]).types).toEqual(['Add', 'Clip', 'Mul', 'Div']);
  });

  it('leave y * Clip(x + 3, 0, 6) / 6 alone when y is not x', () => {
    const b = new GraphBuilder('two_inputs', { ops });
    const x = b.input('x', 'float32', SHAPE);
    const other = b.op('Relu', [x], { name: 'other' });
    const relu6 = b.op(
      'Clip',
      [b.op('Add', [x, b.constant('three', scalar(3))], { name: 'add' }), b.constant('z', scalar(0)), b.constant('s', scalar(6))],
      {
        name: 'clip',
      },
    );
    b.output(b.op('Div', [b.op('Mul', [other, relu6], { name: 'mul' }), b.constant('k', scalar(6))], { name: 'scale' }), 'y');
    expect(fuse(b.build(), [hardSigmoid, hardSwish]).types).toEqual(['Relu', 'Add', 'Clip', 'Mul', 'Div']);
  });

  it('leave the pattern alone when an intermediate has another consumer', () => {
    // the Clip result is also a graph output
    const b = new GraphBuilder('shared', { ops });
    const x = b.input('x', 'float32', SHAPE);
    const relu6 = b.op(
      'Clip',
      [b.op('Add', [x, b.constant('three', scalar(3))], { name: 'add' }), b.constant('z', scalar(0)), b.constant('s', scalar(6))],
      {
        name: 'clip',
      },
    );
    b.output(b.op('Div', [b.op('Mul', [x, relu6], { name: 'mul' }), b.constant('k', scalar(6))], { name: 'scale' }), 'y');
    b.output(relu6, 'clipped');
    expect(fuse(b.build(), [hardSigmoid, hardSwish]).types).toEqual(['Add', 'Clip', 'Mul', 'Div']);
  });

  it('leave the pattern alone when HardSwish or HardSigmoid has no kernel', () => {
    const none = () => false;
    expect(fuse(swishLast({}), [hardSigmoidFusion(none), hardSwishFusion(none)]).types).toEqual(['Add', 'Clip', 'Mul', 'Div']);
  });

  it('let fused-conv-activation fold the fused HardSwish into tsge::FusedConv at O3', () => {
    const b = new GraphBuilder('conv_hswish', { ops });
    const x = b.input('x', 'float32', SHAPE);
    const w = createTensor('float32', [3, 3, 1, 1], randomFloats(9, 5));
    const conv = b.op('Conv', [x, b.constant('w', w)], { name: 'conv' });
    const relu6 = b.op(
      'Clip',
      [b.op('Add', [conv, b.constant('three', scalar(3))], { name: 'add' }), b.constant('z', scalar(0)), b.constant('s', scalar(6))],
      {
        name: 'clip',
      },
    );
    b.output(b.op('Mul', [b.op('Mul', [conv, relu6], { name: 'mul' }), b.constant('k', scalar(1 / 6))], { name: 'scale' }), 'y');
    const graph = b.build();
    const r = fuse(graph, [hardSigmoid, hardSwish, byName('fused-conv-activation')]);
    expect(r.types).toEqual(['FusedConv']);
    const fused = graph.nodes.find((n) => n.type === 'FusedConv');
    expect(fused?.opDesc.attrs.get('activation')?.value).toBe('HardSwish');
  });
});
