import { CONST, type Graph, GraphBuilder, attr, createTensorDesc } from '@tsge/metadef';
import type { OmWriteInput, TensorRef } from './types.js';

/** A small hand-assembled model (x + w → Relu) used by the tests of this package. */
export function sampleModel(): OmWriteInput {
  const b = new GraphBuilder('sample');
  const x = b.input('x', 'float32', [2, 2]);
  const w = b.constant('w', new Float32Array([1, -2, 3, -4]), [2, 2]);
  const sum = b.op('Add', [x, w], { name: 'add', outputDescs: [createTensorDesc('float32', [2, 2])] });
  const y = b.op('Relu', [sum], { name: 'relu', outputDescs: [createTensorDesc('float32', [2, 2])] });
  b.output(y, 'y');
  const graph: Graph = b.build();
  const constNode = graph.nodesOfType(CONST)[0];
  constNode?.opDesc.attrs.set('value', attr.tensorDesc(createTensorDesc('float32', [2, 2])));
  constNode?.opDesc.attrs.set('_weight_offset', attr.int(0));
  constNode?.opDesc.attrs.set('_weight_bytes', attr.int(16));
  const weights = new Uint8Array(64);
  weights.set(new Uint8Array(new Float32Array([1, -2, 3, -4]).buffer));
  const ref = (region: TensorRef['region'], offset: number): TensorRef => ({ region, offset, bytes: 16, dtype: 'float32', shape: [2, 2] });
  return {
    modelName: 'sample',
    target: 'wasm-simd',
    flags: { dynamic: false, gears: false },
    graph,
    weights,
    kernels: [{ name: 'gen0', bytes: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]) }],
    ioInfo: {
      version: 1,
      inputs: [{ name: 'x', dtype: 'float32', shape: [2, 2] }],
      outputs: [{ name: 'y', dtype: 'float32', shape: [2, 2] }],
    },
    taskInfo: {
      version: 1,
      dynamic: false,
      plans: [
        {
          gear: null,
          arenaBytes: 192,
          eventCount: 0,
          memory: { arenaBytes: 192, noReuseBytes: 192, lowerBoundBytes: 128, weightsBytes: 64 },
          inputs: [ref('arena', 0)],
          outputs: [ref('arena', 128)],
          streams: [
            {
              id: 0,
              tasks: [
                {
                  kind: 'kernel',
                  node: 'add',
                  opType: 'Add',
                  domain: 'ai.onnx',
                  kernel: 'reference',
                  inputs: [ref('arena', 0), ref('weights', 0)],
                  outputs: [ref('arena', 64)],
                },
                {
                  kind: 'kernel',
                  node: 'relu',
                  opType: 'Relu',
                  domain: 'ai.onnx',
                  kernel: 'reference',
                  inputs: [ref('arena', 64)],
                  outputs: [ref('arena', 128)],
                },
              ],
            },
          ],
        },
      ],
    },
  };
}
