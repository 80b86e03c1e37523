import type { DataType, HostTensor, RuntimeValue, SequenceValue, TensorStorage } from '@tsge/metadef';
import {
  DTYPE_BYTES,
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
 * symbolic and unknown dims accept any size. A feed that is not a tensor, or whose data are not
 * numbers of its dtype, is TSGE-E6050. A tensor larger than `maxBytes` (the device memory limit) is
 * TSGE-E6051, decided from its dims before its data are read or copied.
 */
export function checkFeeds(feeds: Readonly<Record<string, Feed>>, inputs: readonly IoTensorInfo[], maxBytes = Infinity): RuntimeValue[] {
  if (typeof feeds !== 'object' || feeds === null) throw TsgeError.of('TSGE-E6001', { input: inputs[0]?.name ?? '(none)' });
  const names = inputs.map((i) => i.name);
  for (const name of Object.keys(feeds)) {
    if (!names.includes(name)) throw TsgeError.of('TSGE-E6002', { input: name, expected: names.join(', ') || '(none)' }, { input: name });
  }
  return inputs.map((info) => {
    // own keys only: an input named 'constructor' must not find Object.prototype's
    const feed = Object.hasOwn(feeds, info.name) ? feeds[info.name] : undefined;
    if (feed === undefined || feed === null) throw TsgeError.of('TSGE-E6001', { input: info.name }, { input: info.name });
    return checkFeed(info, feed, maxBytes);
  });
}

const notATensor = (input: string, reason: string): TsgeError => TsgeError.of('TSGE-E6050', { input, reason }, { input });

/** A sequence's items (or an optional's value) are checked as tensors too; their sizes add up. */
function checkContainer(name: string, value: RuntimeValue, maxBytes: number): RuntimeValue {
  if (isOptionalValue(value)) {
    const inner = value.value;
    if (inner === undefined || inner === null) return { kind: 'optional', value: undefined };
    if (typeof inner !== 'object') throw notATensor(name, `its optional value is ${describe(inner)}`);
    return { kind: 'optional', value: isSequenceValue(inner) ? checkSequence(name, inner, maxBytes) : toHostTensor(name, inner, maxBytes) };
  }
  return checkSequence(name, value as SequenceValue, maxBytes);
}

function checkSequence(name: string, sequence: SequenceValue, maxBytes: number): SequenceValue {
  if (!Array.isArray(sequence.items)) throw notATensor(name, 'its sequence has no items array');
  if (!isDataType(sequence.elementType)) throw notATensor(name, `its sequence has element type ${describe(sequence.elementType)}`);
  let left = maxBytes;
  const items = sequence.items.map((item: unknown, i) => {
    if (typeof item !== 'object' || item === null) throw notATensor(name, `sequence item ${i} is ${describe(item)}`);
    const tensor = toHostTensor(name, item as Feed, left);
    if (tensor.type !== sequence.elementType)
      throw TsgeError.of('TSGE-E6003', { input: `${name}[${i}]`, actual: tensor.type, expected: sequence.elementType }, { input: name });
    left -= tensor.data.length * DTYPE_BYTES[tensor.type];
    return tensor;
  });
  return { kind: 'sequence', elementType: sequence.elementType, items };
}

function checkFeed(info: IoTensorInfo, feed: Feed, maxBytes: number): RuntimeValue {
  if (typeof feed !== 'object' || Array.isArray(feed) || ArrayBuffer.isView(feed))
    throw notATensor(info.name, `got ${describe(feed)}; pass { type, dims, data }`);
  const kind = info.kind ?? 'tensor';
  if (isSequenceValue(feed as RuntimeValue) || isOptionalValue(feed as RuntimeValue)) {
    const actual = (feed as { kind: string }).kind;
    if (actual !== kind) throw TsgeError.of('TSGE-E6003', { input: info.name, actual: actual, expected: kind }, { input: info.name });
    return checkContainer(info.name, feed as RuntimeValue, maxBytes);
  }
  if (kind !== 'tensor' && kind !== 'optional')
    throw TsgeError.of('TSGE-E6003', { input: info.name, actual: 'tensor', expected: kind }, { input: info.name });
  const tensor = toHostTensor(info.name, feed, maxBytes);
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
function toHostTensor(name: string, feed: Feed, maxBytes: number): HostTensor {
  const candidate = feed as { type?: unknown; dims?: unknown; data?: unknown };
  const type = candidate.type;
  if (!isDataType(type))
    throw TsgeError.of('TSGE-E6003', { input: name, actual: String(type), expected: 'a tensor dtype' }, { input: name });
  const dims = candidate.dims;
  if (!Array.isArray(dims) || !dims.every((d) => Number.isInteger(d) && d >= 0)) {
    throw TsgeError.of('TSGE-E6004', { input: name, actual: String(dims), expected: 'dims of non-negative integers' }, { input: name });
  }
  const count = dims.reduce((a: number, b: number) => a * b, 1);
  const bytes = count * DTYPE_BYTES[type];
  if (bytes > maxBytes)
    throw TsgeError.of('TSGE-E6051', { input: name, dims: shapeToString(dims), bytes, limit: maxBytes }, { input: name });
  const data = toStorage(type, candidate.data);
  if (data === 'not numbers')
    throw notATensor(name, `its data are not all ${type === 'bool' ? 'booleans or numbers' : 'numbers'} (dtype ${type})`);
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

function toStorage(type: DataType, data: unknown): TensorStorage | 'not numbers' | undefined {
  const Ctor = storageConstructor(type);
  if (!Ctor) return Array.isArray(data) && data.every((s) => typeof s === 'string') ? (data as string[]) : undefined;
  if (data instanceof Ctor) return data;
  if (!Array.isArray(data) && !ArrayBuffer.isView(data)) return undefined;
  if (ArrayBuffer.isView(data) && !('length' in data)) return undefined; // a DataView
  const source = data as ArrayLike<unknown>;
  const out = new Ctor(source.length);
  const big = type === 'int64' || type === 'uint64';
  // a string or an object would silently become NaN (or throw inside BigInt)
  const accepted = (v: unknown): boolean => typeof v === 'number' || typeof v === 'bigint' || (type === 'bool' && typeof v === 'boolean');
  try {
    for (let i = 0; i < source.length; i++) {
      const v = source[i];
      if (!accepted(v)) return 'not numbers';
      (out as unknown as (number | bigint)[])[i] = big ? BigInt(v as number) : Number(v);
    }
  } catch {
    return undefined; // a fractional number for an int64 input
  }
  return out;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a bare ${value.constructor.name}`;
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value} (${String(value).slice(0, 40)})`;
}
