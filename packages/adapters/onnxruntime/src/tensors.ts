import type { InferenceSession as OrtSession, Tensor as OrtTensor } from 'onnxruntime-common';
import { Tensor } from 'onnxruntime-common';
import type { Dim, Feed, Tensor as HostTensor, RuntimeValue, TensorMetadata } from '@tsge/ge';
import { TsgeError } from '@tsge/ge';

// onnxruntime-common's Tensor types; tsge's other types (bfloat16, float8, complex) have no
// onnxruntime-common Tensor and cannot cross this API.
const ORT_TYPES: ReadonlySet<string> = new Set([
  'float32',
  'uint8',
  'int8',
  'uint16',
  'int16',
  'int32',
  'int64',
  'string',
  'bool',
  'float16',
  'float64',
  'uint32',
  'uint64',
  'uint4',
  'int4',
]);

/** onnxruntime's spelling of a tensor type in its messages: `tensor(float)`. */
export function onnxTypeName(type: string): string {
  const names: Record<string, string> = { float32: 'float', float64: 'double', bool: 'bool', float16: 'float16', string: 'string' };
  return `tensor(${names[type] ?? type})`;
}

/** Metadata in onnxruntime's shape: unknown rank → `[]`, tensors typed, other values `isTensor: false`. */
export function toValueMetadata(meta: TensorMetadata): OrtSession.ValueMetadata {
  if ((meta.kind ?? 'tensor') !== 'tensor') return { name: meta.name, isTensor: false };
  const unknownRank = meta.shape.length === 1 && meta.shape[0] === -2;
  return { name: meta.name, isTensor: true, type: meta.dtype as OrtTensor.Type, shape: unknownRank ? [] : (meta.shape as Dim[]) };
}

/** An onnxruntime-common Tensor as a tsge feed (int4/uint4 unpacked to one element per byte). */
export function toFeed(name: string, value: OrtTensor): Feed {
  if (value.location !== 'cpu') {
    throw TsgeError.of('TSGE-E8204', {
      input: name,
      reason: `tensor data location '${value.location}' is not supported; tsge reads 'cpu' tensors`,
    });
  }
  const dims = [...value.dims];
  if (value.type === 'int4' || value.type === 'uint4') {
    const packed = value.data as Uint8Array | Int8Array;
    const bytes = new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength);
    return { type: value.type, dims, data: unpackNibbles(bytes, elementCount(dims), value.type === 'int4') };
  }
  return { type: value.type, dims, data: value.data as HostTensor['data'] };
}

/** A tsge output as an onnxruntime-common Tensor (int4/uint4 packed two per byte, as onnxruntime stores them). */
export function toOrtTensor(name: string, value: RuntimeValue | undefined): OrtTensor {
  if (value === undefined || 'kind' in value) {
    throw TsgeError.of('TSGE-E8206', {
      output: name,
      reason: `is ${value === undefined ? 'absent' : `a ${value.kind}`}; onnxruntime-common's InferenceSession returns tensors only`,
    });
  }
  if (!ORT_TYPES.has(value.type)) {
    throw TsgeError.of('TSGE-E8206', { output: name, reason: `has type ${value.type}, which onnxruntime-common's Tensor cannot hold` });
  }
  const dims = [...value.dims];
  if (value.type === 'int4' || value.type === 'uint4') {
    return new Tensor(value.type, packNibbles(value.data as Uint8Array | Int8Array), dims);
  }
  return new Tensor(value.type as 'float32', value.data as Float32Array, dims);
}

/** Copies a result into a preallocated output, which must have the result's type and dims. */
export function fillPreallocated(name: string, target: OrtTensor, result: OrtTensor): OrtTensor {
  if (target.location !== 'cpu') {
    throw TsgeError.of('TSGE-E8205', {
      output: name,
      reason: `data location '${target.location}' is not supported; tsge writes 'cpu' tensors`,
    });
  }
  if (target.type !== result.type) {
    throw TsgeError.of('TSGE-E8205', {
      output: name,
      reason: `Unexpected output data type. Actual: (${onnxTypeName(target.type)}) , expected: (${onnxTypeName(result.type)})`,
    });
  }
  const problem = dimsProblem('output', name, target.dims, result.dims);
  if (problem) throw TsgeError.of('TSGE-E8205', { output: name, reason: problem });
  const into = target.data as unknown as { set(from: ArrayLike<unknown>): void } | string[];
  if (Array.isArray(into)) into.splice(0, into.length, ...(result.data as string[]));
  else into.set(result.data as ArrayLike<unknown>);
  return target;
}

/** onnxruntime's wording for a rank or dims mismatch, or undefined when `actual` fits `expected`. */
export function dimsProblem(
  what: 'input' | 'output',
  name: string,
  actual: readonly number[],
  expected: readonly Dim[],
): string | undefined {
  if (expected.length === 1 && expected[0] === -2) return undefined;
  if (actual.length !== expected.length) {
    return `Invalid rank for ${what}: ${name} Got: ${actual.length} Expected: ${expected.length} Please fix either the inputs/outputs or the model.`;
  }
  const wrong = expected.flatMap((dim, index) =>
    typeof dim === 'number' && dim >= 0 && dim !== actual[index] ? [` index: ${index} Got: ${actual[index]} Expected: ${dim}`] : [],
  );
  if (wrong.length === 0) return undefined;
  return `Got invalid dimensions for ${what}: ${name} for the following indices\n${wrong.join('\n')}\n Please fix either the inputs/outputs or the model.`;
}

function elementCount(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

function unpackNibbles(packed: Uint8Array, count: number, signed: boolean): Uint8Array | Int8Array {
  const out = signed ? new Int8Array(count) : new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const nibble = ((packed[i >> 1] as number) >> ((i & 1) * 4)) & 0xf;
    out[i] = signed && nibble > 7 ? nibble - 16 : nibble;
  }
  return out;
}

/** Two 4-bit elements per byte, the first in the low nibble; onnxruntime-common wants a Uint8Array for int4 too. */
function packNibbles(values: Uint8Array | Int8Array): Uint8Array {
  const out = new Uint8Array((values.length + 1) >> 1);
  for (let i = 0; i < values.length; i++) out[i >> 1] = (out[i >> 1] as number) | (((values[i] as number) & 0xf) << ((i & 1) * 4));
  return out;
}
