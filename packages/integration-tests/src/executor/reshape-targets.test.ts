// A Reshape whose target is computed from Shape on dynamic dims (paddle2onnx's head split and
// merge: Concat(Slice(Shape(x), 0, 2), [heads, size])) gets a constant target when every entry is
// a number or the input's own dim at that index: 0 then copies it. Here the sequence length is a
// Concat of two symbolic halves, unknown (-1) at compile time, so the proof goes through where the
// dim comes from (the same axis of one tensor, through MatMul rows, Transposes and the first
// Reshape's 0). A target entry that is another index's dim stays computed. Outputs match
// onnxruntime-node on several shapes.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { CONST } from '@tsge/metadef';
import { compareTensors } from '@tsge/run';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { type NodeSpec, onnxModel, onnxNode as op } from '../transformer/single-node-model.fixture.js';

const random = lcg(29);
const ints = (name: string, values: number[]): NodeSpec => op('Constant', [], [name], [{ name: 'value_ints', ints: values }]);
const weights = randomFloats('float32', [12, 24], random);

const bytes = onnxModel(
  [
    op('Concat', ['x', 'x'], ['xx'], [{ name: 'axis', int: 1 }]),
    op('Relu', ['xx'], ['r']),
    op('Constant', [], ['w'], [{ name: 'value', tensor: { dims: [12, 24], data: weights.data as Float32Array } }]),
    op('MatMul', ['r', 'w'], ['m']),
    op('Shape', ['r'], ['s']),
    ints('zero', [0]),
    ints('one', [1]),
    ints('two', [2]),
    op('Slice', ['s', 'zero', 'two', 'zero'], ['bt']),
    ints('heads', [4, 6]),
    // split into heads: [B, T, 4, 6], then [B, 4, T, 6] and back
    op('Concat', ['bt', 'heads'], ['split_to'], [{ name: 'axis', int: 0 }]),
    op('Reshape', ['m', 'split_to'], ['h']),
    op('Transpose', ['h'], ['ht'], [{ name: 'perm', ints: [0, 2, 1, 3] }]),
    op('Relu', ['ht'], ['hr']),
    op('Transpose', ['hr'], ['hb'], [{ name: 'perm', ints: [0, 2, 1, 3] }]),
    ints('width', [24]),
    op('Concat', ['bt', 'width'], ['merge_to'], [{ name: 'axis', int: 0 }]),
    op('Reshape', ['hb', 'merge_to'], ['y']),
    // T first: entry 0 is not the input's dim 0
    op('Slice', ['s', 'one', 'two', 'zero'], ['t']),
    ints('rest', [-1]),
    op('Concat', ['t', 'rest'], ['swap_to'], [{ name: 'axis', int: 0 }]),
    op('Reshape', ['m', 'swap_to'], ['z']),
  ],
  [{ name: 'x', type: 'float32', dims: ['B', 'S', 12] }],
  [
    { name: 'y', type: 'float32', dims: ['B', 'T', 24] },
    { name: 'z', type: 'float32', dims: ['T', 'N'] },
  ],
  13,
);

describe('Reshape targets computed from Shape on dynamic dims', () => {
  it('become constants where every entry is proven, and the model matches onnxruntime-node', async () => {
    const compiled = await compileModel(await parseModel(bytes, { fileName: 'reshape-targets.onnx' }), {});
    expect(compiled.summary.counters['reshape-targets']).toBe(2);
    const reshapes = compiled.model.graph.nodes.filter((n) => n.type === 'Reshape');
    const computed = reshapes.filter((n) => n.inData[1]?.peer?.node.type !== CONST);
    expect(reshapes).toHaveLength(3);
    expect(computed.map((n) => n.opDesc.outputNames[0])).toEqual(['z']);
    const session = await ort.InferenceSession.create(bytes);
    const model = await loadModel(compiled.om, { threads: 1 });
    try {
      for (const dims of [
        [1, 3, 12],
        [2, 5, 12],
        [3, 1, 12],
      ]) {
        const x = randomFloats('float32', dims, random);
        const want = await session.run({ x: new ort.Tensor('float32', x.data as Float32Array, dims) });
        const got = await model.run({ x });
        for (const name of ['y', 'z']) {
          const w = want[name] as ort.Tensor;
          const expected: HostTensor = { type: 'float32', dims: [...w.dims], data: w.data as Float32Array };
          const error = compareTensors(name, got[name] as HostTensor, expected);
          expect(error.shapeMatches, `${name} ${dims}`).toBe(true);
          expect(error.maxAbsError, `${name} ${dims}`).toBeLessThan(1e-4);
        }
      }
    } finally {
      await model.release();
      await session.release();
    }
  });
});
