import type { Dim, Graph, HostTensor } from '@tsge/metadef';
import { GraphBuilder, attr, createTensor } from '@tsge/metadef';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { inferGraph, symbolSource } from './infer-shapes.js';

const ops = createDefaultOpRegistry();
const i64 = (values: number[]): HostTensor => createTensor('int64', [values.length], BigInt64Array.from(values, BigInt));

/** x → Reshape(x, target built by `target` from Shape(x)) → Transpose [0, 2, 1]; the descs after inference. */
function reshaped(
  x: Dim[],
  target: (b: GraphBuilder, shape: ReturnType<GraphBuilder['op']>) => ReturnType<GraphBuilder['op']>,
  allowzero = 0,
) {
  const b = new GraphBuilder('shape_values', { ops });
  const input = b.input('x', 'float32', x);
  const shape = b.op('Shape', [input], { name: 'shape' });
  const r = b.op('Reshape', [input, target(b, shape)], { name: 'reshape', attrs: { allowzero: attr.int(allowzero) } });
  const t = b.op('Transpose', [r], { name: 'transpose', attrs: { perm: attr.ints([0, 2, 1]) } });
  b.output(t, 'y');
  const graph: Graph = b.build();
  expect(inferGraph(graph, ops, symbolSource())).toEqual([]);
  const dims = (name: string) => graph.nodes.find((n) => n.name === name)?.opDesc.outputDescs[0]?.shape;
  return { reshape: dims('reshape'), transpose: dims('transpose') };
}

/** Concat(Slice(shape, from, to), rest): the [N, C, -1] target of a PaddlePaddle export's flatten. */
const sliceThen = (from: number, to: number, rest: number[]) => (b: GraphBuilder, shape: ReturnType<GraphBuilder['op']>) => {
  const part = b.op('Slice', [shape, b.constant('starts', i64([from])), b.constant('ends', i64([to])), b.constant('axes', i64([0]))], {
    name: 'slice',
  });
  return b.op('Concat', [part, b.constant('rest', i64(rest))], { name: 'concat', attrs: { axis: attr.int(0) } });
};

describe('shape values on dynamic dims', () => {
  it('a Reshape to Concat(Slice(Shape(x)), [-1]) keeps the static and symbolic dims it copies', () => {
    const { reshape, transpose } = reshaped(['N', 120, 1, -1], sliceThen(0, 2, [-1]));
    expect(reshape).toEqual(['N', 120, -1]);
    // the row a LayerNorm after the Transpose reduces is static
    expect(transpose).toEqual(['N', -1, 120]);
  });

  it('infers the -1 entry when the other dims cancel to one dim', () => {
    // [N, 8, 15, W] → [N, 120, W]: the -1 is W once N cancels and 8·15 = 120
    const { reshape } = reshaped(['N', 8, 15, 'W'], (b, shape) => {
      const n = b.op('Gather', [shape, b.constant('zero', createTensor('int64', [1], BigInt64Array.of(0n)))], {
        name: 'gather',
        attrs: { axis: attr.int(0) },
      });
      return b.op('Concat', [n, b.constant('rest', i64([120, -1]))], { name: 'concat', attrs: { axis: attr.int(0) } });
    });
    expect(reshape).toEqual(['N', 120, 'W']);
  });

  it('computes entries from shapes with ops that are not moves once their inputs are static', () => {
    // [N, 4, 30, W]: Shape(x)[1] · Shape(x)[2] = 120 by the Mul's own kernel
    const { reshape } = reshaped(['N', 4, 30, 'W'], (b, shape) => {
      const at = (i: number, name: string) =>
        b.op('Slice', [shape, b.constant(`${name}_s`, i64([i])), b.constant(`${name}_e`, i64([i + 1]))], { name });
      const product = b.op('Mul', [at(1, 'c'), at(2, 'h')], { name: 'mul' });
      return b.op('Concat', [b.constant('lead', i64([0])), product, b.constant('rest', i64([-1]))], {
        name: 'concat',
        attrs: { axis: attr.int(0) },
      });
    });
    expect(reshape).toEqual(['N', 120, 'W']);
  });

  it('leaves a dim unknown where the run might differ', () => {
    // an unknown entry (x's dim 1 is -1) could be the -1 at run time: nothing is inferred
    expect(reshaped(['N', -1, 1, 8], sliceThen(0, 2, [-1])).reshape).toEqual(['N', -1, -1]);
    // a symbol copied to another position: were it 0 at run time, allowzero 0 would copy the input's dim there
    const swapped = (b: GraphBuilder, shape: ReturnType<GraphBuilder['op']>) => {
      const n = b.op('Slice', [shape, b.constant('s', i64([0])), b.constant('e', i64([1]))], { name: 'slice' });
      return b.op('Concat', [b.constant('one', i64([4])), n, b.constant('rest', i64([-1]))], {
        name: 'concat',
        attrs: { axis: attr.int(0) },
      });
    };
    expect(reshaped(['N', 4, 2, 'W'], swapped).reshape).toEqual([4, -1, -1]);
    expect(reshaped(['N', 4, 2, 'W'], swapped, 1).reshape).toEqual([4, 'N', -1]);
  });
});
