import { type DataType, type HostTensor, type TensorStorage, DTYPE_BYTES, allocateStorage, createTensor } from '@tsge/metadef';
import type { ITensorProto, ITensorShapeProto } from '../internal/proto.js';
import { LIMITS, TfProblem, toInt } from '../internal/problem.js';
import { tfDtype } from './dtype.js';

/** Dims of a TensorShapeProto: -1 stays unknown; unknown rank is `undefined`. */
export function shapeOf(shape: ITensorShapeProto | null | undefined): number[] | undefined {
  if (!shape || shape.unknownRank) return undefined;
  return (shape.dim ?? []).map((d) => {
    const n = toInt(d.size, 'dim size');
    return n < 0 ? -1 : n;
  });
}

const textDecoder = new TextDecoder();

/** Decodes a TensorProto into a host tensor; `where` names it in problems. */
export function decodeTensor(proto: ITensorProto, where: string): HostTensor {
  const type = tfDtype(proto.dtype, where);
  const dims = shapeOf(proto.tensorShape) ?? [];
  if (dims.some((d) => d < 0))
    throw new TfProblem('TSGE-E3105', { tensor: where, reason: `constant has unknown dims [${dims.join(',')}]` });
  let count = 1;
  for (const d of dims) count *= d;
  if (count > LIMITS.tensorElements)
    throw new TfProblem('TSGE-E3106', {
      format: 'TensorFlow model',
      what: `tensor ${where} elements`,
      actual: count,
      limit: LIMITS.tensorElements,
    });
  if (type === 'string') {
    const values = (proto.stringVal ?? []).map((s) => textDecoder.decode(s));
    return createTensor('string', dims, splat(values, count, '', where) as string[]);
  }
  const content = proto.tensorContent;
  if (content && content.length > 0) return fromBytes(type, dims, content, where);
  const storage = allocateStorage(type, count);
  const source = valuesOf(proto, type);
  if (source.length > count) throw new TfProblem('TSGE-E3105', { tensor: where, reason: `${source.length} values for ${count} elements` });
  if (source.length > 0) {
    for (let i = 0; i < count; i++) {
      const v = source[Math.min(i, source.length - 1)];
      (storage as unknown as (number | bigint)[])[i] = convert(v as number | bigint, type);
    }
  }
  return createTensor(type, dims, storage);
}

function splat<T>(values: T[], count: number, zero: T, where: string): T[] {
  if (values.length > count) throw new TfProblem('TSGE-E3105', { tensor: where, reason: `${values.length} values for ${count} elements` });
  if (values.length === count) return values;
  const last = values.length ? (values[values.length - 1] as T) : zero;
  return Array.from({ length: count }, (_, i) => (i < values.length ? (values[i] as T) : last));
}

function convert(v: number | bigint, type: DataType): number | bigint {
  if (type === 'int64' || type === 'uint64') return typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
  return typeof v === 'bigint' ? Number(v) : v;
}

function longs(values: readonly unknown[] | null | undefined, unsigned: boolean): bigint[] {
  return (values ?? []).map((v) => {
    if (typeof v === 'number') return BigInt(v);
    if (typeof v === 'string') return BigInt(v);
    const l = v as { low: number; high: number };
    const big = (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0);
    return unsigned ? big : BigInt.asIntN(64, big);
  });
}

function valuesOf(proto: ITensorProto, type: DataType): readonly (number | bigint)[] {
  switch (type) {
    case 'float32':
      return proto.floatVal ?? [];
    case 'float64':
      return proto.doubleVal ?? [];
    case 'int64':
      return longs(proto.int64Val, false);
    case 'uint64':
      return longs(proto.uint64Val, true);
    case 'uint32':
      return proto.uint32Val ?? [];
    case 'bool':
      return (proto.boolVal ?? []).map((b) => (b ? 1 : 0));
    case 'float16':
    case 'bfloat16':
      return proto.halfVal ?? [];
    case 'int32':
    case 'int16':
    case 'int8':
    case 'uint8':
    case 'uint16':
      return proto.intVal ?? [];
    default:
      throw new TfProblem('TSGE-E3105', { tensor: 'value', reason: `data type ${type} is not supported in constants` });
  }
}

/** Little-endian raw bytes (tensor_content, checkpoint and tfjs shards) as a tensor. */
export function fromBytes(type: DataType, dims: readonly number[], bytes: Uint8Array, where: string): HostTensor {
  let count = 1;
  for (const d of dims) count *= d;
  const width = DTYPE_BYTES[type];
  if (!width || type === 'string') throw new TfProblem('TSGE-E3105', { tensor: where, reason: `data type ${type} has no raw layout` });
  if (bytes.length !== count * width)
    throw new TfProblem('TSGE-E3105', { tensor: where, reason: `${bytes.length} bytes for ${count} elements of ${type}` });
  const storage = allocateStorage(type, count) as TensorStorage & { buffer: ArrayBufferLike; byteOffset: number; byteLength: number };
  new Uint8Array(storage.buffer, storage.byteOffset, storage.byteLength).set(bytes);
  return createTensor(type, dims, storage);
}
