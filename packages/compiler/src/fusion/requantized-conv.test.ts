import type { Graph, HostTensor, OpRegistry } from '@tsge/metadef';
import { GraphBuilder, attr, createKernelRegistryOf, createTensor } from '@tsge/metadef';
import { interpretGraph, jsKernelLibrary } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../pass-manager.js';
import { fusionAsPass } from './matcher.js';
import { requantizedConvFusion } from './requantized-conv.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

interface Spec {
  bias?: boolean;
  clip?: boolean;
  /** QuantizeLinear's scale (the fusion needs exactly 1). */
  quantScale?: number;
  /** Dims of the requantization scale (per channel by default). */
  scaleDims?: number[];
}

const C = 6;

/** ConvInteger → [Add bias] → Cast → Mul scale → QuantizeLinear(s, zp) → [Clip], as the TFLite importer writes it. */
function chain(spec: Spec): Graph {
  const rnd = seeded(5);
  const b = new GraphBuilder('requantized', { ops });
  const x = b.input('x', 'uint8', [1, 4, 5, 5]);
  const w = b.constant(
    'w',
    createTensor(
      'int8',
      [C, 4, 3, 3],
      Int8Array.from({ length: C * 36 }, () => Math.floor(rnd() * 255) - 127),
    ),
  );
  const xz = b.constant('xz', createTensor('uint8', [], Uint8Array.of(131)));
  const wz = b.constant('wz', createTensor('int8', [C], new Int8Array(C)));
  let v = b.op('ConvInteger', [x, w, xz, wz], { name: 'conv', attrs: { pads: attr.ints([1, 1, 1, 1]) } });
  if (spec.bias !== false)
    v = b.op(
      'Add',
      [
        v,
        b.constant(
          'bias',
          createTensor(
            'int32',
            [1, C, 1, 1],
            Int32Array.from({ length: C }, (_, i) => i * 997 - 2500),
          ),
        ),
      ],
      {
        name: 'bias',
      },
    );
  v = b.op('Cast', [v], { name: 'cast', attrs: { to: attr.int(1) } });
  const dims = spec.scaleDims ?? [1, C, 1, 1];
  const count = dims.reduce((p, d) => p * d, 1);
  const scale = createTensor(
    'float32',
    dims,
    Float32Array.from({ length: count }, () => 0.002 + rnd() * 0.002),
  );
  v = b.op('Mul', [b.constant('scale', scale), v], { name: 'scale' });
  v = b.op(
    'QuantizeLinear',
    [
      v,
      b.constant('unit', createTensor('float32', [], Float32Array.of(spec.quantScale ?? 1))),
      b.constant('yz', createTensor('uint8', [], Uint8Array.of(7))),
    ],
    { name: 'quantize' },
  );
  if (spec.clip)
    v = b.op(
      'Clip',
      [v, b.constant('lo', createTensor('uint8', [], Uint8Array.of(7))), b.constant('hi', createTensor('uint8', [], Uint8Array.of(200)))],
      { name: 'clip' },
    );
  b.output(v, 'y');
  return b.build();
}

function fuse(graph: Graph): string[] {
  const rnd = seeded(9);
  const feeds = {
    x: createTensor(
      'uint8',
      [1, 4, 5, 5],
      Uint8Array.from({ length: 100 }, () => Math.floor(rnd() * 256)),
    ),
  };
  const expected = interpretGraph(graph, feeds, { kernels });
  const manager = new PassManager({ ops, target: 'js', level: 3 });
  manager.run(graph, [fusionAsPass(requantizedConvFusion)], 'test');
  expect(manager.diagnostics).toEqual([]);
  const actual = interpretGraph(graph, feeds, { kernels });
  const e = expected[0] as HostTensor;
  const a = actual[0] as HostTensor;
  expect(a.type).toBe(e.type);
  expect(a.dims).toEqual(e.dims);
  expect(Array.from(a.data as Uint8Array)).toEqual(Array.from(e.data as Uint8Array));
  // the chain is not trivially saturated
  expect(new Set(Array.from(a.data as Uint8Array)).size).toBeGreaterThan(20);
  return graph.nodes.map((n) => n.type).filter((t) => t !== 'Data' && t !== 'NetOutput' && t !== 'Const');
}

describe('requantized-conv fusion', () => {
  it.each([
    ['bias and per-channel scale', {}],
    ['no bias', { bias: false }],
    ['a Clip after the quantization', { clip: true }],
    ['one scale', { scaleDims: [] }],
  ])('fuses the chain with %s into tsge::RequantizedConv, values unchanged', (_label, spec: Spec) => {
    expect(fuse(chain(spec))).toEqual(['RequantizedConv']);
  });

  it.each([
    ['a QuantizeLinear scale other than 1', { quantScale: 0.5 }],
    ['a scale that is not per channel', { scaleDims: [1, 1, 5, 1] }],
  ])('leaves the chain with %s alone', (_label, spec: Spec) => {
    expect(fuse(chain(spec))).toContain('ConvInteger');
  });
});
