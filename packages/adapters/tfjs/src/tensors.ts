import type { Dim, Feed, RuntimeValue, TensorMetadata } from '@tsge/ge';
import { TsgeError } from '@tsge/ge';
import { type DataType, type HostTensor, readNumber } from '@tsge/metadef';
import * as tf from '@tensorflow/tfjs-core';

/**
 * TensorFlow.js's dtype for a tsge dtype: tfjs holds every integer type as int32 and every float
 * as float32, as its converter maps DT_INT64, DT_UINT8, DT_DOUBLE, ... .
 */
export function tfDtypeOf(dtype: DataType): tf.DataType | undefined {
  switch (dtype) {
    case 'float32':
    case 'float16':
    case 'float64':
    case 'bfloat16':
      return 'float32';
    case 'int32':
    case 'int64':
    case 'int16':
    case 'int8':
    case 'uint8':
    case 'uint16':
    case 'uint32':
    case 'uint64':
      return 'int32';
    case 'bool':
      return 'bool';
    case 'string':
      return 'string';
    case 'complex64':
      return 'complex64';
    default:
      return undefined;
  }
}

/**
 * tfjs's TensorInfo of a model input or output: unknown dimensions are -1 for graph models and
 * null for layers models (as tfjs's SymbolicTensor); an unknown rank has no shape.
 */
export interface ModelTensorInfo {
  readonly name: string;
  readonly shape?: (number | null)[];
  readonly dtype: tf.DataType;
}

export function tensorInfoOf(meta: TensorMetadata, unknownDim: -1 | null = -1): ModelTensorInfo {
  const unknownRank = meta.shape.length === 1 && meta.shape[0] === -2;
  return {
    name: meta.name,
    ...(unknownRank ? {} : { shape: meta.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : unknownDim)) }),
    dtype: tfDtypeOf(meta.dtype) ?? 'float32',
  };
}

/** True when `shape` fits the model's dims (symbolic and -1 dims take any size). */
export function shapeFits(shape: readonly number[], dims: readonly Dim[]): boolean {
  if (dims.length === 1 && dims[0] === -2) return true;
  return shape.length === dims.length && shape.every((d, i) => typeof dims[i] !== 'number' || (dims[i] as number) < 0 || dims[i] === d);
}

const INT_RANGES: Readonly<Partial<Record<DataType, readonly [number, number]>>> = {
  int8: [-128, 127],
  uint8: [0, 255],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  uint32: [0, 4294967295],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

/**
 * A tf.Tensor's values as a feed of the model's dtype. `cast` lets a numeric tensor feed a numeric
 * input of another dtype (layers models: TensorFlow.js's layers do not check input dtypes).
 */
export async function toFeed(name: string, tensor: tf.Tensor, dtype: DataType, cast: boolean): Promise<Feed> {
  checkFeedTensor(name, tensor, dtype, cast);
  return feedOf(name, tensor, dtype, (await tensor.data()) as TfValues);
}

/** `toFeed` reading the values with `dataSync()` (for the synchronous execute/predict). */
export function toFeedSync(name: string, tensor: tf.Tensor, dtype: DataType, cast: boolean): Feed {
  checkFeedTensor(name, tensor, dtype, cast);
  return feedOf(name, tensor, dtype, tensor.dataSync() as TfValues);
}

/** What tfjs's data()/dataSync() give: numbers, or the bytes of each string. */
type TfValues = Float32Array | Int32Array | Uint8Array | Uint8Array[];

/** Everything about a feed that is known before its values are read. */
function checkFeedTensor(name: string, tensor: tf.Tensor, dtype: DataType, cast: boolean): void {
  if (tensor.isDisposed) throw TsgeError.of('TSGE-E8309', { input: name, reason: 'Tensor is disposed.' });
  const want = tfDtypeOf(dtype);
  if (tensor.dtype === 'complex64' || want === 'complex64' || want === undefined) {
    throw TsgeError.of('TSGE-E8309', { input: name, reason: `tsge takes no ${tensor.dtype} tensors for a ${dtype} input` });
  }
  if ((tensor.dtype === 'string' || want === 'string' || !cast) && tensor.dtype !== want) throw dtypeProblem(name, want, tensor.dtype);
}

function feedOf(name: string, tensor: tf.Tensor, dtype: DataType, read: TfValues): Feed {
  const dims = [...tensor.shape];
  if (tensor.dtype === 'string') {
    const decoder = new TextDecoder();
    return { type: 'string', dims, data: (read as Uint8Array[]).map((b) => decoder.decode(b)) };
  }
  const values = read as Float32Array | Int32Array | Uint8Array;
  switch (dtype) {
    case 'float32':
      return { type: dtype, dims, data: values instanceof Float32Array ? values : Float32Array.from(values) };
    case 'float64':
      return { type: dtype, dims, data: Float64Array.from(values) };
    case 'int32':
      return { type: dtype, dims, data: values instanceof Int32Array ? values : Int32Array.from(values, Math.trunc) };
    case 'bool':
      return { type: dtype, dims, data: Uint8Array.from(values, (v) => (v ? 1 : 0)) };
    case 'int64':
      return { type: dtype, dims, data: BigInt64Array.from(values, (v) => BigInt(Math.trunc(v))) };
    default: {
      const range = INT_RANGES[dtype];
      if (!range) throw TsgeError.of('TSGE-E8309', { input: name, reason: `tsge cannot feed a ${dtype} input from a tf.Tensor` });
      const ints = Array.from(values, Math.trunc);
      const bad = ints.find((v) => v < range[0] || v > range[1]);
      if (bad !== undefined) throw TsgeError.of('TSGE-E8309', { input: name, reason: `value ${bad} does not fit the model's ${dtype}` });
      return { type: dtype, dims, data: dtype === 'uint64' ? BigUint64Array.from(ints, BigInt) : ints };
    }
  }
}

function dtypeProblem(name: string, want: string, got: string): TsgeError {
  return TsgeError.of('TSGE-E8309', {
    input: name,
    reason: `The dtype of dict['${name}'] provided in model.execute(dict) must be ${want}, but was ${got}`,
  });
}

/** A tsge output as a tf.Tensor (on tfjs's current backend), in tfjs's dtype for it. */
export function toTfTensor(name: string, value: RuntimeValue | undefined): tf.Tensor {
  if (!value || 'kind' in value) {
    throw TsgeError.of('TSGE-E8310', { output: name, reason: `a ${value ? value.kind : 'missing'} value is not a tf.Tensor` });
  }
  const tensor = value as HostTensor;
  const dims = [...tensor.dims];
  const dtype = tfDtypeOf(tensor.type);
  switch (dtype) {
    case 'float32':
      return tf.tensor(
        tensor.data instanceof Float32Array ? tensor.data : Float32Array.from({ length: count(dims) }, (_, i) => readNumber(tensor, i)),
        dims,
        dtype,
      );
    case 'bool':
      return tf.tensor(Uint8Array.from(tensor.data as Uint8Array), dims, dtype);
    case 'string':
      return tf.tensor(tensor.data as string[], dims, dtype);
    case 'int32': {
      if (tensor.data instanceof Int32Array) return tf.tensor(tensor.data, dims, dtype);
      const out = new Int32Array(count(dims));
      for (let i = 0; i < out.length; i++) {
        const v = readNumber(tensor, i);
        if (v < -2147483648 || v > 2147483647)
          throw TsgeError.of('TSGE-E8310', { output: name, reason: `${tensor.type} value ${v} does not fit TensorFlow.js's int32` });
        out[i] = v;
      }
      return tf.tensor(out, dims, dtype);
    }
    default:
      throw TsgeError.of('TSGE-E8310', { output: name, reason: `TensorFlow.js has no dtype for ${tensor.type}` });
  }
}

function count(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}
