import type { AttrValue, FusionPassV1, Graph, HostTensor, OpRegistry, Value } from '@tsge/metadef';
import { GraphBuilder, attr, createTensor } from '@tsge/metadef';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary, interpretGraph } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../pass-manager.js';
import { dumpIr } from '../test-dump.js';
import { randomFloats } from '../test-graphs.js';
import { affineConvFusion } from './affine-conv.js';
import { fusionAsPass } from './matcher.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);
const f32 = (dims: number[], seed: number): HostTensor =>
  createTensor(
    'float32',
    dims,
    randomFloats(
      dims.reduce((a, b) => a * b, 1),
      seed,
    ),
  );
const scalar = (v: number, dims: number[] = []) => createTensor('float32', dims, Float32Array.of(v));
const SHAPE = [1, 4, 5, 5];

/** Runs the fusion, checks the outputs are unchanged, returns the op types left. */
function fuse(graph: Graph, fusion: FusionPassV1 = affineConvFusion): string[] {
  const feeds = { x: f32(SHAPE, 3) };
  const expected = interpretGraph(graph, feeds, { kernels })[0] as HostTensor;
  const manager = new PassManager({ ops, target: 'js', level: 3 });
  manager.run(graph, [fusionAsPass(fusion)], 'test');
  expect(manager.diagnostics).toEqual([]);
  const actual = interpretGraph(graph, feeds, { kernels })[0] as HostTensor;
  expect(actual.dims).toEqual(expected.dims);
  for (const [i, v] of (expected.data as Float32Array).entries()) expect((actual.data as Float32Array)[i]).toBeCloseTo(v, 4);
  return graph.nodes.map((n) => n.type).filter((t) => t !== 'Data' && t !== 'NetOutput' && t !== 'Const');
}

interface ConvSpec {
  pads?: number[];
  group?: number;
  bias?: boolean;
  autoPad?: string;
}

/** Relu(x), then `before` on it, then a Conv with 6 output channels. */
function thenConv(before: (b: GraphBuilder, h: Value) => Value, spec: ConvSpec = {}): Graph {
  const b = new GraphBuilder('affine_conv', { ops });
  const x = b.input('x', 'float32', SHAPE);
  const h = b.op('Relu', [x], { name: 'act' });
  const group = spec.group ?? 1;
  const inputs = [before(b, h), b.constant('w', f32([6, 4 / group, 3, 3], 4))];
  if (spec.bias ?? true) inputs.push(b.constant('b', f32([6], 5)));
  const attrs: Record<string, AttrValue> = { group: attr.int(group) };
  if (spec.autoPad) attrs.auto_pad = attr.string(spec.autoPad);
  else attrs.pads = attr.ints(spec.pads ?? [0, 0, 0, 0]);
  b.output(b.op('Conv', inputs, { name: 'conv', attrs }), 'y');
  return b.build();
}
const labFirstConstant = (b: GraphBuilder, h: Value) =>
  b.op('Add', [b.op('Mul', [b.constant('s', scalar(0.8)), h], { name: 'scale' }), b.constant('t', scalar(-0.3))], { name: 'shift' });
const channels = (values: number[]) => createTensor('float32', [1, values.length, 1, 1], Float32Array.from(values));

describe('affine-conv', () => {
  it('folds a scalar Mul then Add before an unpadded Conv into its weights and bias', async () => {
    const graph = thenConv(labFirstConstant);
    const before = dumpIr(graph);
    expect(fuse(graph)).toEqual(['Relu', 'Conv']);
    await expect(`${before}--- after\n${dumpIr(graph)}`).toMatchFileSnapshot('golden/affine-conv.txt');
  });

  it('folds per-channel constants into a grouped Conv without a bias', () => {
    const graph = thenConv(
      (b, h) =>
        b.op(
          'Add',
          [
            b.op('Mul', [h, b.constant('s', channels([1, -2, 0.5, 3]))], { name: 'scale' }),
            b.constant('t', channels([0.1, 0.2, -0.3, 0.4])),
          ],
          {
            name: 'shift',
          },
        ),
      { group: 2, bias: false },
    );
    expect(fuse(graph)).toEqual(['Relu', 'Conv']);
  });

  it('folds only the Mul when the Conv pads (the padded zeros would not see the Add)', () => {
    expect(fuse(thenConv((b, h) => b.op('Mul', [h, b.constant('s', scalar(2))], { name: 'm' }), { pads: [1, 1, 1, 1] }))).toEqual([
      'Relu',
      'Conv',
    ]);
    expect(fuse(thenConv(labFirstConstant, { pads: [1, 1, 1, 1] }))).toEqual(['Relu', 'Mul', 'Add', 'Conv']);
    expect(fuse(thenConv(labFirstConstant, { autoPad: 'SAME_UPPER' }))).toEqual(['Relu', 'Mul', 'Add', 'Conv']);
  });

  it.each([
    ['a constant over the width axis', f32([1, 1, 1, 5], 7)],
    ['a full-size constant', f32(SHAPE, 8)],
  ])('leaves the Conv alone with %s', (_label, constant) => {
    const graph = thenConv((b, h) => b.op('Mul', [h, b.constant('s', constant)], { name: 'm' }));
    expect(fuse(graph)).toEqual(['Relu', 'Mul', 'Conv']);
  });

  it('leaves the Mul alone when its result has another consumer or its operand is not constant', () => {
    const b = new GraphBuilder('shared', { ops });
    const x = b.input('x', 'float32', SHAPE);
    const h = b.op('Relu', [x], { name: 'act' });
    const m = b.op('Mul', [h, b.constant('s', scalar(2))], { name: 'm' });
    const conv = b.op('Conv', [m, b.constant('w', f32([4, 4, 1, 1], 4))], { name: 'conv' });
    b.output(b.op('Add', [conv, m], { name: 'sum' }), 'y');
    expect(fuse(b.build())).toEqual(['Relu', 'Mul', 'Conv', 'Add']);
    expect(fuse(thenConv((bb, hh) => bb.op('Mul', [hh, hh], { name: 'sq' })))).toEqual(['Relu', 'Mul', 'Conv']);
  });
});
