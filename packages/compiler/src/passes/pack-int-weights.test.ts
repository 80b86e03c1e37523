import { GraphBuilder, type HostTensor, type KernelV1, TSGE_DOMAIN, createKernelRegistryOf, createTensor, readNumber } from '@tsge/metadef';
import { interpretGraph, jsKernelLibrary } from '@tsge/kernels-js';
import { PACKED_MATMUL_INTEGER, REQUANTIZED_CONV, createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../pass-manager.js';
import { packIntWeightsPass } from './pack-int-weights.js';

const ops = createDefaultOpRegistry();
// the pass packs for targets whose integer kernels are the SIMD ones: stand-ins by that name
const simdNamed = (opType: string, domain: string): KernelV1 => ({
  specVersion: 'v1',
  opType,
  domain,
  name: 'wasm-simd',
  dtypes: ['uint8', 'int8'],
  compute: () => {
    throw new Error('not run here');
  },
});
const kernels = createKernelRegistryOf([
  { kernels: [simdNamed(REQUANTIZED_CONV, TSGE_DOMAIN), simdNamed(PACKED_MATMUL_INTEGER, TSGE_DOMAIN)], tiles: [] },
  jsKernelLibrary,
]);
const hostKernels = createKernelRegistryOf([jsKernelLibrary]);

function bytes(type: 'uint8' | 'int8', dims: number[], seed: number): HostTensor {
  const t = createTensor(type, dims);
  let s = seed;
  for (let i = 0; i < t.data.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    (t.data as Uint8Array)[i] = (s >> 8) & 0xff;
  }
  return t;
}

describe('pack-int-weights: constant B of MatMulInteger / QLinearMatMul', () => {
  it('packs each B once into panels on PackedMatMulInteger nodes, leaves what it cannot pack, and keeps the values', () => {
    const b = new GraphBuilder('products', { ops });
    const a = b.input('a', 'uint8', [5, 40]);
    const az = b.input('az', 'uint8', []);
    const w = b.constant('w', bytes('uint8', [40, 30], 3));
    const wz = b.constant('wz', createTensor('uint8', [], Uint8Array.of(117)));
    // two products sharing B and its zero point
    b.output(b.op('MatMulInteger', [a, w, az, wz], { name: 'mm1' }), 'y1');
    b.output(b.op('MatMulInteger', [a, w, az, wz], { name: 'mm2' }), 'y2');
    // int8 with a zero point per column, requantized
    const a8 = b.input('a8', 'int8', [2, 3, 24]);
    const scale = (v: number) => b.constant(`s${v}`, createTensor('float32', [], Float32Array.of(v)));
    const v = bytes('int8', [24, 19], 5);
    const vz = b.constant(
      'vz',
      createTensor(
        'int8',
        [19],
        Int8Array.from({ length: 19 }, (_, i) => i - 9),
      ),
    );
    const q = b.op(
      'QLinearMatMul',
      [
        a8,
        scale(0.02),
        b.constant('a8z', createTensor('int8', [], Int8Array.of(-3))),
        b.constant('v', v),
        scale(0.015),
        vz,
        scale(0.15),
        b.constant('yz', createTensor('int8', [], Int8Array.of(4))),
      ],
      { name: 'q' },
    );
    b.output(q, 'y3');
    // a B zero point given at run time cannot be folded into the panels
    const u = b.constant('u', bytes('uint8', [40, 8], 9));
    b.output(b.op('MatMulInteger', [a, u, az, b.input('uz', 'uint8', [])], { name: 'kept' }), 'y4');
    const graph = b.build();
    const feeds = {
      a: bytes('uint8', [5, 40], 11),
      az: createTensor('uint8', [], Uint8Array.of(131)),
      a8: bytes('int8', [2, 3, 24], 12),
      uz: createTensor('uint8', [], Uint8Array.of(100)),
    };
    const expected = interpretGraph(graph, feeds, { kernels: hostKernels });
    const manager = new PassManager({ ops, target: 'wasm-simd', level: 3 });
    manager.run(graph, [packIntWeightsPass(kernels, 'wasm-simd')], 'test');
    expect(manager.diagnostics).toEqual([]);
    expect(manager.counters['int-matmul-weights-packed']).toBe(3);
    const packed = graph.nodes.filter((n) => n.type === PACKED_MATMUL_INTEGER);
    expect(packed).toHaveLength(3);
    // one panel constant for the shared B; B and its zero point are gone
    expect(new Set(packed.map((n) => n.inData[1]?.peer?.node))).toHaveProperty('size', 2);
    expect(graph.nodes.some((n) => n.name === 'w' || n.name === 'wz' || n.name === 'v' || n.name === 'vz')).toBe(false);
    expect(graph.nodes.filter((n) => n.type === 'MatMulInteger').map((n) => n.name)).toEqual(['kept']);
    const actual = interpretGraph(graph, feeds, { kernels: hostKernels });
    expect(new Set((actual[2] as HostTensor).data as Int8Array).size).toBeGreaterThan(20);
    for (const [index, value] of expected.entries()) {
      const name = `output ${index}`;
      const e = value as HostTensor;
      const got = actual[index] as HostTensor;
      expect(got.type, name).toBe(e.type);
      expect(got.dims, name).toEqual(e.dims);
      expect(
        Array.from({ length: e.data.length }, (_, i) => readNumber(got, i)),
        name,
      ).toEqual(Array.from({ length: e.data.length }, (_, i) => readNumber(e, i)));
    }
  });
});
