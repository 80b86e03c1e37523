import type { Graph, HostTensor, OpRegistry } from '@tsge/metadef';
import { GraphBuilder, createTensor } from '@tsge/metadef';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary, interpretGraph } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../pass-manager.js';
import { dumpIr } from '../test-dump.js';
import { randomFloats } from '../test-graphs.js';
import { affineBatchNormFusion } from './affine-batchnorm.js';
import { fusionAsPass } from './matcher.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);
const fusion = affineBatchNormFusion((type) => ops.has(type, 'ai.onnx'));
const tensor = (dims: number[], values: number[]) => createTensor('float32', dims, Float32Array.from(values));

/** Runs the fusion on y = Relu(x) * s + b, checks the outputs are unchanged, returns the op types left. */
function fuse(shape: number[], s: HostTensor, b: HostTensor, swapped = false): { types: string[]; graph: Graph } {
  const builder = new GraphBuilder('affine', { ops });
  const x = builder.op('Relu', [builder.input('x', 'float32', shape)], { name: 'act' });
  const scale = builder.constant('s', s);
  const mul = builder.op('Mul', swapped ? [scale, x] : [x, scale], { name: 'scale' });
  const shift = builder.constant('b', b);
  builder.output(builder.op('Add', swapped ? [shift, mul] : [mul, shift], { name: 'shift' }), 'y');
  const graph = builder.build();
  const size = shape.reduce((p, d) => p * d, 1);
  const feeds = { x: createTensor('float32', shape, randomFloats(size, 4)) };
  const expected = interpretGraph(graph, feeds, { kernels })[0] as HostTensor;
  const manager = new PassManager({ ops, target: 'js', level: 3 });
  manager.run(graph, [fusionAsPass(fusion)], 'test');
  expect(manager.diagnostics).toEqual([]);
  const actual = interpretGraph(graph, feeds, { kernels })[0] as HostTensor;
  expect(actual.dims).toEqual(expected.dims);
  for (const [i, v] of (expected.data as Float32Array).entries()) expect((actual.data as Float32Array)[i]).toBeCloseTo(v, 6);
  return { types: graph.nodes.map((n) => n.type).filter((t) => t !== 'Data' && t !== 'NetOutput' && t !== 'Const'), graph };
}

describe('affine-batchnorm', () => {
  it('turns a scalar Mul then Add into one BatchNormalization', async () => {
    const r = fuse([1, 3, 2, 2], tensor([], [0.75]), tensor([1], [-0.25]));
    expect(r.types).toEqual(['Relu', 'BatchNormalization']);
    await expect(dumpIr(r.graph)).toMatchFileSnapshot('golden/affine-batchnorm.txt');
  });

  it('takes per-channel constants in either operand order, and rank-2 inputs', () => {
    expect(fuse([2, 3, 4], tensor([3, 1], [1, 2, 3]), tensor([1, 3, 1], [0.5, 0, -1]), true).types).toEqual(['Relu', 'BatchNormalization']);
    expect(fuse([4, 3], tensor([3], [1, 2, 3]), tensor([], [1])).types).toEqual(['Relu', 'BatchNormalization']);
  });

  it.each([
    ['a constant over the last axis', [1, 3, 2, 4], tensor([4], [1, 2, 3, 4])],
    ['a full-size constant', [1, 2, 1, 2], tensor([1, 2, 1, 2], [1, 2, 3, 4])],
    ['a constant that broadcasts to a larger rank', [3, 2], tensor([1, 1, 1], [2])],
    ['a rank-1 input', [3], tensor([], [2])],
  ])('leaves Mul and Add alone with %s', (_label, shape, s) => {
    expect(fuse(shape, s, tensor([], [0.5])).types).toEqual(['Relu', 'Mul', 'Add']);
  });
});
