// Opset-11 Softmax/LogSoftmax on a tensor whose rank the parser does not know are parsed as
// Reshape(Softmax(Flatten(x, axis)), Shape(x)). With the Flatten at x's last axis the compiler makes
// that one softmax over the last axis again (on dynamic dims, where the Shape is not folded); at
// another axis the 2-D coercion stays. Both agree with onnxruntime-node on several shapes.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { compareTensors } from '@tsge/run';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { onnxModel, onnxNode as op } from '../transformer/single-node-model.fixture.js';

const random = lcg(23);
const x = { name: 'x', type: 'float32' as const, dims: ['batch', 'time', 7] };
const out = (name: string) => ({ name, type: 'float32' as const, dims: ['batch', 'time', 7] });
// Relu first: the parser knows the rank of a graph input, not of a computed tensor
const model = (axis: number) =>
  onnxModel(
    [
      op('Relu', ['x'], ['r']),
      op('Softmax', ['r'], ['y'], [{ name: 'axis', int: axis }]),
      op('LogSoftmax', ['r'], ['z'], [{ name: 'axis', int: axis }]),
    ],
    [x],
    [out('y'), out('z')],
    11,
  );

async function check(bytes: Uint8Array, label: string): Promise<string[]> {
  const compiled = await compileModel(await parseModel(bytes, { fileName: `${label}.onnx` }), {});
  const session = await ort.InferenceSession.create(bytes);
  const executor = await loadModel(compiled.om, { threads: 1 });
  try {
    for (const dims of [
      [2, 3, 7],
      [1, 5, 7],
    ]) {
      const feed = randomFloats('float32', dims, random);
      const want = await session.run({ x: new ort.Tensor('float32', feed.data as Float32Array, dims) });
      const got = await executor.run({ x: feed });
      for (const name of ['y', 'z']) {
        const w = want[name] as ort.Tensor;
        const expected: HostTensor = { type: 'float32', dims: [...w.dims], data: w.data as Float32Array };
        const error = compareTensors(name, got[name] as HostTensor, expected);
        expect((got[name] as HostTensor).dims, `${label} ${name}`).toEqual(dims);
        expect(error.maxAbsError, `${label} ${name} ${dims}`).toBeLessThan(1e-5);
      }
    }
  } finally {
    await executor.release();
    await session.release();
  }
  return compiled.model.graph.nodes.map((n) => n.type);
}

describe('a flattened opset-11 softmax on dynamic dims', () => {
  it('at the last axis becomes one Softmax / LogSoftmax over it', async () => {
    const types = await check(model(2), 'last-axis');
    for (const gone of ['Flatten', 'Shape', 'Reshape']) expect(types, gone).not.toContain(gone);
    expect(types.filter((t) => t === 'Softmax' || t === 'LogSoftmax')).toHaveLength(2);
  });

  it('at another axis keeps its 2-D coercion', async () => {
    const types = await check(model(1), 'axis-1');
    expect(types).toContain('Flatten');
    expect(types.filter((t) => t === 'Reshape')).toHaveLength(2);
  });
});
