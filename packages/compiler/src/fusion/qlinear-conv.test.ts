import type { Graph, HostTensor, OpRegistry } from '@tsge/metadef';
import { GraphBuilder, attr, createKernelRegistryOf, createTensor } from '@tsge/metadef';
import { interpretGraph, jsKernelLibrary } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../pass-manager.js';
import { fusionAsPass } from './matcher.js';
import { qlinearConvFusion } from './qlinear-conv.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

const C = 6;

interface Spec {
  bias?: boolean;
  perChannel?: boolean;
  /** y_scale as a graph input instead of a constant (not fusable). */
  dynamicScale?: boolean;
}

/** One QLinearConv over a uint8 input with int8 weights. */
function qlinearConv(spec: Spec): Graph {
  const rnd = seeded(3);
  const b = new GraphBuilder('qlinear', { ops });
  const x = b.input('x', 'uint8', [1, 4, 6, 5]);
  const f32 = (name: string, values: number[]) =>
    b.constant(name, createTensor('float32', values.length === 1 ? [] : [values.length], Float32Array.from(values)));
  const w = b.constant(
    'w',
    createTensor(
      'int8',
      [C, 4, 3, 3],
      Int8Array.from({ length: C * 36 }, () => Math.floor(rnd() * 255) - 127),
    ),
  );
  const ws = f32('ws', spec.perChannel === false ? [0.011] : Array.from({ length: C }, () => 0.005 + rnd() * 0.01));
  const ys = spec.dynamicScale ? b.input('ys', 'float32', []) : f32('ys', [0.021]);
  const inputs = [
    x,
    f32('xs', [0.0173]),
    b.constant('xz', createTensor('uint8', [], Uint8Array.of(129))),
    w,
    ws,
    b.constant('wz', createTensor('int8', [C], new Int8Array(C))),
    ys,
    b.constant('yz', createTensor('uint8', [], Uint8Array.of(120))),
  ];
  if (spec.bias !== false)
    inputs.push(
      b.constant(
        'bias',
        createTensor(
          'int32',
          [C],
          Int32Array.from({ length: C }, (_, i) => i * 1013 - 2700),
        ),
      ),
    );
  b.output(b.op('QLinearConv', inputs, { name: 'conv', attrs: { pads: attr.ints([1, 0, 1, 2]), strides: attr.ints([1, 2]) } }), 'y');
  return b.build();
}

function fuse(graph: Graph, spec: Spec): string[] {
  const rnd = seeded(9);
  const feeds: Record<string, HostTensor> = {
    x: createTensor(
      'uint8',
      [1, 4, 6, 5],
      Uint8Array.from({ length: 120 }, () => Math.floor(rnd() * 256)),
    ),
  };
  if (spec.dynamicScale) feeds.ys = createTensor('float32', [], Float32Array.of(0.021));
  const expected = interpretGraph(graph, feeds, { kernels });
  const manager = new PassManager({ ops, target: 'js', level: 3 });
  manager.run(graph, [fusionAsPass(qlinearConvFusion)], 'test');
  expect(manager.diagnostics).toEqual([]);
  const actual = interpretGraph(graph, feeds, { kernels });
  const e = expected[0] as HostTensor;
  const a = actual[0] as HostTensor;
  expect(a.type).toBe(e.type);
  expect(a.dims).toEqual(e.dims);
  expect(Array.from(a.data as Uint8Array)).toEqual(Array.from(e.data as Uint8Array));
  expect(new Set(Array.from(a.data as Uint8Array)).size).toBeGreaterThan(20);
  return graph.nodes.map((n) => n.type).filter((t) => t !== 'Data' && t !== 'NetOutput' && t !== 'Const');
}

describe('qlinear-conv fusion', () => {
  it.each([
    ['bias and per-channel weight scales', {}],
    ['no bias', { bias: false }],
    ['one weight scale', { perChannel: false }],
  ])('turns QLinearConv with %s into tsge::RequantizedConv (exact_product), values unchanged', (_label, spec: Spec) => {
    const graph = qlinearConv(spec);
    expect(fuse(graph, spec)).toEqual(['RequantizedConv']);
    expect(graph.nodes.find((n) => n.type === 'RequantizedConv')?.opDesc.attrs.get('exact_product')).toEqual(attr.int(1));
  });

  it('leaves a QLinearConv whose y_scale is not a constant alone', () => {
    const spec = { dynamicScale: true };
    expect(fuse(qlinearConv(spec), spec)).toEqual(['QLinearConv']);
  });
});
