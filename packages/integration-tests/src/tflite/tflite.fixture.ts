// Helpers for comparing TFLite models: seeded inputs, output quantization, top-k.
import { type DataType, type HostTensor, createTensor } from '@tsge/metadef';
import { ByteBuffer } from 'flatbuffers';
import { tfliteIo } from '@tsge/parser-tflite';

/** Deterministic input: integers over the type's range, floats in [0, 1). */
export function seededInput(dtype: DataType, dims: readonly number[], seed: number): HostTensor {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const count = dims.reduce((a, b) => a * b, 1);
  const tensor = createTensor(dtype, dims);
  const data = tensor.data as Float32Array | Uint8Array | Int8Array;
  for (let i = 0; i < count; i++) {
    if (dtype === 'uint8') data[i] = Math.floor(next() * 256);
    else if (dtype === 'int8') data[i] = Math.floor(next() * 256) - 128;
    else data[i] = next();
  }
  return tensor;
}

export interface OutputQuantization {
  readonly scale: number;
  readonly zeroPoint: number;
}

/** Per-tensor quantization of each model output, by name (absent: a float or index output). */
export function quantizationOf(bytes: Uint8Array): Map<string, OutputQuantization> {
  return new Map(tfliteIo(bytes).outputs.flatMap((o) => (o.quantization ? [[o.name, o.quantization] as const] : [])));
}

/** Both outputs as real numbers (dequantized with the output's parameters when it is quantized). */
export function dequantizedOutputs(mine: HostTensor, theirs: HostTensor, q: OutputQuantization | undefined): [Float64Array, Float64Array] {
  const convert = (t: HostTensor) =>
    Float64Array.from(t.data as ArrayLike<number | bigint>, (v) => (q ? (Number(v) - q.zeroPoint) * q.scale : Number(v)));
  return [convert(mine), convert(theirs)];
}

/** Indices of the k largest values (ties by lower index). */
export function topK(values: ArrayLike<number>, k: number): number[] {
  return Array.from({ length: values.length }, (_, i) => i)
    .sort((a, b) => (values[b] as number) - (values[a] as number) || a - b)
    .slice(0, k);
}

/**
 * A copy of a .tflite file whose first subgraph output is another tensor (to compare a model at
 * a tensor LiteRT cannot return, such as the int64 ArgMax of a segmenter). Edits the outputs
 * vector in place, so the file's layout is unchanged.
 */
export function withFirstOutput(bytes: Uint8Array, tensor: number): Uint8Array {
  const copy = bytes.slice();
  const bb = new ByteBuffer(copy);
  const field = (table: number, slot: number): number => {
    const vtable = table - bb.readInt32(table);
    const offset = bb.readUint16(vtable + 4 + 2 * slot);
    if (!offset) throw new Error(`field ${slot} is absent`);
    return table + offset;
  };
  const deref = (at: number) => at + bb.readUint32(at);
  const subgraphs = deref(field(bb.readUint32(0), 2));
  const subgraph = deref(subgraphs + 4);
  const outputs = deref(field(subgraph, 2));
  bb.writeInt32(outputs + 4, tensor);
  return copy;
}
