import * as ort from '@tsge/adapter-onnxruntime';
import type { HostTensor, RuntimeValue } from '@tsge/metadef';
import { isOptionalValue, isSequenceValue } from '@tsge/metadef';
import type { Engine } from './engine.js';

/**
 * The onnxruntime-compatible path: @tsge/adapter-onnxruntime's InferenceSession (the drop-in for
 * onnxruntime-node) on the model file, with the values a user of it passes: onnxruntime-common
 * Tensors, arrays of them for sequences, null for an absent optional, and the drop-in's
 * TsgeTensorValue for types onnxruntime-common lacks (bfloat16, float8, float4, complex).
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
          const feeds: Record<string, unknown> = {};
          inputNames.forEach((name, i) => {
            const value = inputs[i];
            if (value !== undefined) feeds[name] = toDropIn(value);
          });
          const out = (await session.run(feeds as Record<string, ort.Tensor>)) as Record<string, ort.DropInValue | undefined>;
          return outputNames.map((name) => {
            const value = out[name];
            return value === undefined ? undefined : fromDropIn(value);
          });
        },
        release: () => session.release(),
      };
    },
  };
}

/** ONNX types onnxruntime-common's Tensor has no name for: the drop-in's TsgeTensorValue carries them. */
const EXTENSION_TYPES: ReadonlySet<string> = new Set([
  'bfloat16',
  'float8e4m3fn',
  'float8e4m3fnuz',
  'float8e5m2',
  'float8e5m2fnuz',
  'float4e2m1',
  'complex64',
  'complex128',
]);

function toDropIn(value: RuntimeValue): ort.DropInValue {
  if (isSequenceValue(value)) return value.items.map(toOrtTensor);
  if (isOptionalValue(value)) return value.value === undefined ? null : toDropIn(value.value);
  return toOrtTensor(value as HostTensor);
}

function toOrtTensor(value: HostTensor): ort.Tensor | ort.TsgeTensorValue {
  const dims = [...value.dims];
  if (EXTENSION_TYPES.has(value.type)) {
    const size = dims.reduce((a, b) => a * b, 1);
    return {
      type: value.type as ort.TsgeTensorValue['type'],
      dims,
      data: value.data as ort.TsgeTensorValue['data'],
      size,
      location: 'cpu',
    };
  }
  if (value.type === 'int4' || value.type === 'uint4') {
    const packed = new Uint8Array((value.data.length + 1) >> 1);
    for (let i = 0; i < value.data.length; i++)
      packed[i >> 1] = (packed[i >> 1] as number) | (((value.data[i] as number) & 0xf) << ((i & 1) * 4));
    return new ort.Tensor(value.type, packed, dims); // a Uint8Array for int4 too, as onnxruntime-common wants
  }
  return new ort.Tensor(value.type as 'float32', value.data as Float32Array, dims);
}

function fromDropIn(value: ort.DropInValue): RuntimeValue {
  if (value === null) return { kind: 'optional', value: undefined };
  if (Array.isArray(value)) {
    const items = value.map(fromTensor);
    return { kind: 'sequence', elementType: items[0]?.type ?? 'float32', items };
  }
  return fromTensor(value);
}

function fromTensor(tensor: ort.Tensor | ort.TsgeTensorValue): HostTensor {
  const dims = [...tensor.dims];
  if (tensor.type === 'int4' || tensor.type === 'uint4') {
    const count = dims.reduce((a, b) => a * b, 1);
    const data = tensor.data as Uint8Array;
    const packed = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const out = tensor.type === 'int4' ? new Int8Array(count) : new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      const nibble = ((packed[i >> 1] as number) >> ((i & 1) * 4)) & 0xf;
      out[i] = tensor.type === 'int4' && nibble > 7 ? nibble - 16 : nibble;
    }
    return { type: tensor.type, dims, data: out };
  }
  return { type: tensor.type as HostTensor['type'], dims, data: tensor.data as HostTensor['data'] } as HostTensor;
}
