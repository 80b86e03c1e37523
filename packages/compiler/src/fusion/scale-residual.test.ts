import type { Graph, HostTensor, OpRegistry, Value } from '@tsge/metadef';
import { GraphBuilder, createTensor } from '@tsge/metadef';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary, interpretGraph } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../pass-manager.js';
import { dumpIr } from '../test-dump.js';
import { randomFloats } from '../test-graphs.js';
import { fusionAsPass } from './matcher.js';
import { scaleResidualFusion } from './scale-residual.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);
const SHAPE = [1, 3, 4, 4];
const fusion = scaleResidualFusion((type) => ops.has(type, 'ai.onnx'));

/** Runs the fusion, checks the outputs are unchanged, returns the op types left. */
function fuse(graph: Graph): string[] {
  const feeds = { x: createTensor('float32', SHAPE, randomFloats(48, 9)) };
  const expected = interpretGraph(graph, feeds, { kernels })[0] as HostTensor;
  const manager = new PassManager({ ops, target: 'js', level: 3 });
  manager.run(graph, [fusionAsPass(fusion)], 'test');
  expect(manager.diagnostics).toEqual([]);
  const actual = interpretGraph(graph, feeds, { kernels })[0] as HostTensor;
  expect(actual.dims).toEqual(expected.dims);
  for (const [i, v] of (expected.data as Float32Array).entries()) expect((actual.data as Float32Array)[i]).toBeCloseTo(v, 5);
  return graph.nodes.map((n) => n.type).filter((t) => t !== 'Data' && t !== 'NetOutput' && t !== 'Const');
}

/** y = x + x * gate(x), x = Relu(input). */
function build(gate: (b: GraphBuilder, x: Value) => Value, swapped = false): Graph {
  const b = new GraphBuilder('scale_residual', { ops });
  const x = b.op('Relu', [b.input('x', 'float32', SHAPE)], { name: 'x_act' });
  const s = gate(b, x);
  const mul = b.op('Mul', swapped ? [s, x] : [x, s], { name: 'gate' });
  b.output(b.op('Add', swapped ? [mul, x] : [x, mul], { name: 'residual' }), 'y');
  return b.build();
}
const squeezeExcite = (b: GraphBuilder, x: Value) =>
  b.op('HardSigmoid', [b.op('GlobalAveragePool', [x], { name: 'pool' })], { name: 'hsig' });

describe('scale-residual', () => {
  it('turns x + x * s into x * (s + 1) for a squeeze-excite gate, in either operand order', async () => {
    const graph = build(squeezeExcite);
    const before = dumpIr(graph);
    expect(fuse(graph)).toEqual(['Relu', 'GlobalAveragePool', 'HardSigmoid', 'Add', 'Mul']);
    expect(graph.findNode('residual_gate_plus_one')?.opDesc.outputDescs[0]?.shape).toEqual([1, 3, 1, 1]);
    await expect(`${before}--- after\n${dumpIr(graph)}`).toMatchFileSnapshot('golden/scale-residual.txt');
    expect(fuse(build(squeezeExcite, true))).toEqual(['Relu', 'GlobalAveragePool', 'HardSigmoid', 'Add', 'Mul']);
  });

  it('leaves x + x * s alone when s is as large as x or broadcasts x to a larger shape', () => {
    expect(fuse(build((b, x) => b.op('Sigmoid', [x], { name: 'sig' })))).toEqual(['Relu', 'Sigmoid', 'Mul', 'Add']);
    const wide = build((b) => b.constant('s', createTensor('float32', [2, 1, 1, 1, 1], Float32Array.of(0.5, 2))));
    expect(fuse(wide)).toEqual(['Relu', 'Mul', 'Add']);
  });

  it('leaves x + y * s alone when y is not x, and x * s shared elsewhere', () => {
    const b = new GraphBuilder('other', { ops });
    const input = b.input('x', 'float32', SHAPE);
    const x = b.op('Relu', [input], { name: 'x_act' });
    const y = b.op('Neg', [input], { name: 'y' });
    const s = squeezeExcite(b, x);
    b.output(b.op('Add', [x, b.op('Mul', [y, s], { name: 'gate' })], { name: 'residual' }), 'y');
    expect(fuse(b.build())).toEqual(['Relu', 'Neg', 'GlobalAveragePool', 'HardSigmoid', 'Mul', 'Add']);
    const shared = new GraphBuilder('shared', { ops });
    const xs = shared.op('Relu', [shared.input('x', 'float32', SHAPE)], { name: 'x_act' });
    const gate = shared.op('Mul', [xs, squeezeExcite(shared, xs)], { name: 'gate' });
    shared.output(shared.op('Add', [xs, gate], { name: 'residual' }), 'y');
    shared.output(gate, 'gated');
    expect(fuse(shared.build())).toEqual(['Relu', 'GlobalAveragePool', 'HardSigmoid', 'Mul', 'Add']);
  });
});
