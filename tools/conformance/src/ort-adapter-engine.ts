import * as ort from '@tsge/adapter-onnxruntime';
import type { HostTensor, RuntimeValue } from '@tsge/metadef';
import { TsgeError, isHostTensor } from '@tsge/metadef';
import type { Engine } from './engine.js';

/**
 * The onnxruntime-compatible path: @tsge/adapter-onnxruntime's InferenceSession (the drop-in for
 * onnxruntime-node) on the model file, onnxruntime-common Tensors in and out. What that API cannot
 * carry (sequences, optionals, bfloat16, float8, complex) fails here by design.
 */
export function createOrtAdapterEngine(): Engine {
  return {
    name: 'ort-adapter',
    async prepare(graph, _bytes, modelPath) {
      const outputNames = graph.outputNode()?.opDesc.inputNames ?? [];
      // one thread, as the pipeline engine: no worker start-up per test
      const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1 });
      return {
        async run(inputs, inputNames) {
          const feeds: Record<string, ort.Tensor> = {};
          inputNames.forEach((name, i) => {
            const value = inputs[i];
            if (value !== undefined) feeds[name] = toOrtTensor(name, value);
          });
          const out = await session.run(feeds);
          return outputNames.map((name) => {
            const tensor = out[name];
            return tensor === undefined ? undefined : fromOrtTensor(tensor as ort.Tensor);
          });
        },
        release: () => session.release(),
      };
    },
  };
}

function toOrtTensor(name: string, value: RuntimeValue): ort.Tensor {
  if (!isHostTensor(value))
    throw TsgeError.of('TSGE-E8204', { input: name, reason: `a ${value.kind} cannot be an onnxruntime-common Tensor` });
  if (value.type === 'int4' || value.type === 'uint4') {
    const packed = new Uint8Array((value.data.length + 1) >> 1);
    for (let i = 0; i < value.data.length; i++)
      packed[i >> 1] = (packed[i >> 1] as number) | (((value.data[i] as number) & 0xf) << ((i & 1) * 4));
    return new ort.Tensor(value.type, packed, [...value.dims]); // a Uint8Array for int4 too, as onnxruntime-common wants
  }
  // throws onnxruntime-common's own TypeError for types it has no Tensor for (bfloat16, float8, ...)
  return new ort.Tensor(value.type as 'float32', value.data as Float32Array, [...value.dims]);
}

function fromOrtTensor(tensor: ort.Tensor): HostTensor {
  const dims = [...tensor.dims];
  if (tensor.type === 'int4' || tensor.type === 'uint4') {
    const count = dims.reduce((a, b) => a * b, 1);
    const packed = new Uint8Array(
      (tensor.data as Uint8Array).buffer,
      (tensor.data as Uint8Array).byteOffset,
      (tensor.data as Uint8Array).byteLength,
    );
    const out = tensor.type === 'int4' ? new Int8Array(count) : new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      const nibble = ((packed[i >> 1] as number) >> ((i & 1) * 4)) & 0xf;
      out[i] = tensor.type === 'int4' && nibble > 7 ? nibble - 16 : nibble;
    }
    return { type: tensor.type, dims, data: out };
  }
  return { type: tensor.type as HostTensor['type'], dims, data: tensor.data as HostTensor['data'] };
}
