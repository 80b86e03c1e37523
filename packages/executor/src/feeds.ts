import type { DataType, HostTensor, RuntimeValue, TensorStorage } from '@tsge/metadef';
import {
  TsgeError,
  isDataType,
  isOptionalValue,
  isSequenceValue,
  isUnknownRank,
  shapeToString,
  storageConstructor,
  storageLanes,
} from '@tsge/metadef';
import type { IoTensorInfo } from '@tsge/om';
import type { Feed } from './options.js';

/**
 * Checks feeds against the model inputs before any kernel runs and returns them in input order.
 * Wrong name, dtype, rank or dim → TSGE-E6001..E6004 naming the input and what was expected;
 * symbolic and unknown dims accept any size.
 */
export function checkFeeds(feeds: Readonly<Record<string, Feed>>, inputs: readonly IoTensorInfo[]): RuntimeValue[] {
  if (typeof feeds !== 'object' || feeds === null) throw TsgeError.of('TSGE-E6001', { input: inputs[0]?.name ?? '(none)' });
  const names = inputs.map((i) => i.name);
  for (const name of Object.keys(feeds)) {
    if (!names.includes(name)) throw TsgeError.of('TSGE-E6002', { input: name, expected: names.join(', ') || '(none)' }, { input: name });
  }
  return inputs.map((info) => {
    const feed = feeds[info.name];
    if (feed === undefined || feed === null) throw TsgeError.of('TSGE-E6001', { input: info.name }, { input: info.name });
    return checkFeed(info, feed);
  });
}

function checkFeed(info: IoTensorInfo, feed: Feed): RuntimeValue {
  const kind = info.kind ?? 'tensor';
  if (isSequenceValue(feed as RuntimeValue) || isOptionalValue(feed as RuntimeValue)) {
    const actual = (feed as { kind: string }).kind;
    if (actual !== kind) throw TsgeError.of('TSGE-E6003', { input: info.name, actual: actual, expected: kind }, { input: info.name });
    return feed as RuntimeValue;
  }
  if (kind !== 'tensor' && kind !== 'optional')
    throw TsgeError.of('TSGE-E6003', { input: info.name, actual: 'tensor', expected: kind }, { input: info.name });
  const tensor = toHostTensor(info.name, feed);
  if (tensor.type !== info.dtype)
    throw TsgeError.of('TSGE-E6003', { input: info.name, actual: tensor.type, expected: info.dtype }, { input: info.name });
  if (!isUnknownRank(info.shape)) {
    const mismatch =
      tensor.dims.length !== info.shape.length ||
      info.shape.some((dim, i) => typeof dim === 'number' && dim >= 0 && dim !== tensor.dims[i]);
    if (mismatch) {
      throw TsgeError.of(
        'TSGE-E6004',
        { input: info.name, actual: shapeToString(tensor.dims), expected: shapeToString(info.shape) },
        { input: info.name },
      );
    }
  }
  return kind === 'optional' ? { kind: 'optional', value: tensor } : tensor;
}

/** Accepts a HostTensor or an onnxruntime-common-like `{ type, dims, data }` and checks its data length. */
function toHostTensor(name: string, feed: Feed): HostTensor {
  const candidate = feed as { type?: unknown; dims?: unknown; data?: unknown };
  const type = candidate.type;
  if (!isDataType(type))
    throw TsgeError.of('TSGE-E6003', { input: name, actual: String(type), expected: 'a tensor dtype' }, { input: name });
  const dims = candidate.dims;
  if (!Array.isArray(dims) || !dims.every((d) => Number.isInteger(d) && d >= 0)) {
    throw TsgeError.of('TSGE-E6004', { input: name, actual: String(dims), expected: 'dims of non-negative integers' }, { input: name });
  }
  const data = toStorage(type, candidate.data);
  const count = dims.reduce((a: number, b: number) => a * b, 1);
  if (!data || data.length !== count * storageLanes(type)) {
    throw TsgeError.of(
      'TSGE-E6004',
      {
        input: name,
        actual: `${shapeToString(dims)} with ${data?.length ?? 0} data elements`,
        expected: `${count * storageLanes(type)} elements`,
      },
      { input: name },
    );
  }
  return { type, dims: [...dims], data };
}

function toStorage(type: DataType, data: unknown): TensorStorage | undefined {
  const Ctor = storageConstructor(type);
  if (!Ctor) return Array.isArray(data) && data.every((s) => typeof s === 'string') ? (data as string[]) : undefined;
  if (data instanceof Ctor) return data;
  if (!Array.isArray(data) && !ArrayBuffer.isView(data)) return undefined;
  const source = data as ArrayLike<number | bigint>;
  const out = new Ctor(source.length);
  const big = type === 'int64' || type === 'uint64';
  try {
    for (let i = 0; i < source.length; i++) {
      const v = source[i];
      (out as unknown as (number | bigint)[])[i] = big ? BigInt(v as number) : Number(v);
    }
  } catch {
    return undefined; // a fractional number for an int64 input
  }
  return out;
}
