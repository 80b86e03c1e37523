import type { InferenceSession as OrtSession, Tensor as OrtTensor } from 'onnxruntime-common';
import { Tensor } from 'onnxruntime-common';
import type { DataType, Dim, Feed, Tensor as HostTensor, RuntimeValue, SequenceValue, TensorMetadata } from '@tsge/ge';
import { TsgeError } from '@tsge/ge';

// onnxruntime-common's Tensor types; tsge's other types (bfloat16, float8, float4, complex) have
// no onnxruntime-common Tensor and cross the drop-in as TsgeTensorValues.
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

/**
 * tsge's extension for tensors of types onnxruntime-common's Tensor has no name for (bfloat16,
 * the float8 and float4 types, complex64/128): a plain CPU tensor with tsge's type name and the
 * raw storage (bfloat16 as Uint16Array bits, float8/float4e2m1 as Uint8Array bits, one element
 * per byte; complex as interleaved Float32Array/Float64Array). The drop-in returns these and takes
 * them as feeds; a value of an onnxruntime type is always an onnxruntime-common Tensor.
 */
export interface TsgeTensorValue {
  readonly type:
    | 'bfloat16'
    | 'float8e4m3fn'
    | 'float8e4m3fnuz'
    | 'float8e5m2'
    | 'float8e5m2fnuz'
    | 'float4e2m1'
    | 'complex64'
    | 'complex128';
  readonly dims: readonly number[];
  readonly data: Uint16Array | Uint8Array | Float32Array | Float64Array;
  readonly size: number;
  readonly location: 'cpu';
}

/** What the drop-in's `run` returns for an output: tensors, arrays of them (sequences), null (an absent optional). */
export type DropInValue = OrtTensor | TsgeTensorValue | (OrtTensor | TsgeTensorValue)[] | null;

const EXTENSION_STORAGE: Readonly<
  Record<TsgeTensorValue['type'], typeof Uint16Array | typeof Uint8Array | typeof Float32Array | typeof Float64Array>
> = {
  bfloat16: Uint16Array,
  float8e4m3fn: Uint8Array,
  float8e4m3fnuz: Uint8Array,
  float8e5m2: Uint8Array,
  float8e5m2fnuz: Uint8Array,
  float4e2m1: Uint8Array,
  complex64: Float32Array,
  complex128: Float64Array,
};

/**
 * A feed for input `meta` as a tsge value: an onnxruntime-common Tensor (int4/uint4 unpacked to
 * one element per byte) or a TsgeTensorValue for a tensor; an array of them for a sequence; null
 * for an absent optional (onnxruntime-common requires every input to be present, and null is).
 */
export function toFeed(name: string, value: unknown, meta: TensorMetadata | undefined): Feed {
  const kind = meta?.kind ?? 'tensor';
  if (kind === 'optional') {
    if (value === null) return { kind: 'optional', value: undefined };
    return { kind: 'optional', value: Array.isArray(value) ? toSequence(name, value, meta) : toTensor(name, value) };
  }
  if (kind === 'sequence') {
    if (!Array.isArray(value)) throw TsgeError.of('TSGE-E8204', { input: name, reason: 'is a sequence: feed an array of Tensors' });
    return toSequence(name, value, meta);
  }
  if (value === null || Array.isArray(value))
    throw TsgeError.of('TSGE-E8204', { input: name, reason: `is a tensor: feed a Tensor, not ${value === null ? 'null' : 'an array'}` });
  return toTensor(name, value);
}

function toSequence(name: string, items: readonly unknown[], meta: TensorMetadata | undefined): SequenceValue {
  const tensors = items.map((item, i) => toTensor(`${name}[${i}]`, item));
  const elementType = (tensors[0]?.type ?? meta?.dtype ?? 'float32') as DataType;
  return { kind: 'sequence', elementType, items: tensors };
}

function toTensor(name: string, value: unknown): HostTensor {
  if (value instanceof Tensor) {
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
    return { type: value.type, dims, data: value.data as HostTensor['data'] } as HostTensor;
  }
  const candidate = value as Partial<TsgeTensorValue> | undefined;
  const storage = typeof candidate?.type === 'string' ? EXTENSION_STORAGE[candidate.type] : undefined;
  if (storage && Array.isArray(candidate?.dims) && candidate.data instanceof storage) {
    return { type: candidate.type as DataType, dims: [...candidate.dims], data: candidate.data } as HostTensor;
  }
  throw TsgeError.of('TSGE-E8204', {
    input: name,
    reason: "is not an onnxruntime-common Tensor (nor a { type, dims, data } tensor of a type onnxruntime lacks, tsge's extension)",
  });
}

/**
 * A tsge output as onnxruntime-common values. Tensors of onnxruntime's types become Tensors
 * (int4/uint4 packed two per byte, as onnxruntime stores them). With `extended` (the drop-in),
 * sequences become arrays, an absent optional null and other types TsgeTensorValues; without it
 * (onnxruntime-common's own InferenceSession, which makes a Tensor of every result) they are TSGE-E8206.
 */
export function toOrtValue(name: string, value: RuntimeValue | undefined, extended: boolean): DropInValue {
  if (value !== undefined && 'kind' in value && extended) {
    if (value.kind === 'sequence') return value.items.map((item) => toOrtValue(name, item, true) as OrtTensor);
    return value.value === undefined ? null : toOrtValue(name, value.value, true);
  }
  if (value === undefined || 'kind' in value) {
    throw TsgeError.of('TSGE-E8206', {
      output: name,
      reason: `is ${value === undefined ? 'absent' : `a ${value.kind}`}; onnxruntime-common's InferenceSession returns tensors only (the drop-in InferenceSession returns sequences as arrays and absent optionals as null)`,
    });
  }
  if (!ORT_TYPES.has(value.type)) {
    if (extended && value.type in EXTENSION_STORAGE) {
      const dims = [...value.dims];
      return {
        type: value.type as TsgeTensorValue['type'],
        dims,
        data: value.data as TsgeTensorValue['data'],
        size: elementCount(dims),
        location: 'cpu',
      };
    }
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
