import { type DataType, type HostTensor, TsgeError, createTensor, dataTypeFromOnnx, elementCount } from '@tsge/metadef';
import type { mind_ir } from '../generated/mind-ir.js';

/** An attribute or Constant value as JS: scalars, lists, tensors, tuples, monads. */
export type AttrJs = number | boolean | string | HostTensor | { readonly monad: true } | { readonly none: true } | readonly AttrJs[];

const T = {
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  UINT16: 4,
  INT16: 5,
  INT32: 6,
  INT64: 7,
  STRING: 8,
  BOOL: 9,
  FLOAT16: 10,
  DOUBLE: 11,
  UINT32: 12,
  UINT64: 13,
  TENSOR: 17,
  TENSORS: 19,
  TUPLE: 20,
  LIST: 21,
  UMONAD: 23,
  IOMONAD: 24,
  NONE: 25,
} as const;

/** Values per tensor a file may declare (4 GiB of float32). */
const MAX_ELEMENTS = 2 ** 30;

export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** MindIR's TensorProto.DataType numbering is ONNX's for 1..16; 17 is another spelling of float64. */
export function tensorDtype(code: number, name: string): DataType {
  const dtype = code === 17 ? 'float64' : dataTypeFromOnnx(code);
  if (!dtype || dtype === 'string' || dtype === 'complex64' || dtype === 'complex128')
    throw TsgeError.of('TSGE-E3306', { tensor: name, dtype: code });
  return dtype;
}

function decodeRaw(raw: Uint8Array, dtype: DataType, count: number, name: string): HostTensor['data'] {
  const widths: Partial<Record<DataType, number>> = {
    float32: 4,
    float64: 8,
    int8: 1,
    uint8: 1,
    int16: 2,
    uint16: 2,
    int32: 4,
    uint32: 4,
    int64: 8,
    uint64: 8,
    bool: 1,
    float16: 2,
    bfloat16: 2,
  };
  const width = widths[dtype] as number;
  if (raw.length !== count * width) {
    throw TsgeError.of('TSGE-E3305', {
      parameter: name,
      reason: `raw data has ${raw.length} bytes; ${count} ${dtype} values need ${count * width}`,
    });
  }
  // a copy: protobufjs hands out views of a pooled Node Buffer, whose slice() is not a copy
  const copy = Uint8Array.prototype.slice.call(raw).buffer;
  switch (dtype) {
    case 'float32':
      return new Float32Array(copy);
    case 'float64':
      return new Float64Array(copy);
    case 'int8':
      return new Int8Array(copy);
    case 'uint8':
    case 'bool':
      return new Uint8Array(copy);
    case 'int16':
      return new Int16Array(copy);
    case 'uint16':
    case 'float16':
    case 'bfloat16':
      return new Uint16Array(copy);
    case 'int32':
      return new Int32Array(copy);
    case 'uint32':
      return new Uint32Array(copy);
    case 'int64':
      return new BigInt64Array(copy);
    default:
      return new BigUint64Array(copy);
  }
}

/** A TensorProto with its data inline (raw_data or the typed lists); `raw` overrides for external data. */
export function decodeTensor(t: mind_ir.ITensorProto, name: string, raw?: Uint8Array): HostTensor {
  const dims = (t.dims ?? []).map(num);
  if (dims.some((d) => !Number.isSafeInteger(d) || d < 0))
    throw TsgeError.of('TSGE-E3305', { parameter: name, reason: `dims [${dims.join(',')}] are invalid` });
  const count = elementCount(dims);
  if (count > MAX_ELEMENTS) throw TsgeError.of('TSGE-E3308', { what: `tensor ${name} element count`, actual: count, limit: MAX_ELEMENTS });
  if ((t.compression_type ?? 0) !== 0)
    throw TsgeError.of('TSGE-E3305', { parameter: name, reason: `compression type ${t.compression_type} is not supported` });
  const dtype = tensorDtype(t.data_type ?? 0, name);
  const bytes = raw ?? t.raw_data;
  if (bytes?.length) return createTensor(dtype, dims, decodeRaw(bytes, dtype, count, name));
  const lists: [readonly unknown[] | null | undefined, boolean][] = [
    [t.float_data, false],
    [t.double_data, false],
    [t.int32_data, false],
    [t.int64_data, true],
    [t.uint64_data, true],
  ];
  for (const [list, big] of lists) {
    if (!list?.length) continue;
    if (list.length !== count)
      throw TsgeError.of('TSGE-E3305', { parameter: name, reason: `${list.length} values for dims [${dims.join(',')}]` });
    const tensor = createTensor(dtype, dims);
    const data = tensor.data as unknown as { [i: number]: number | bigint };
    list.forEach((v, i) => {
      data[i] = dtype === 'int64' || dtype === 'uint64' ? BigInt(String(v)) : big ? Number(String(v)) : Number(v);
    });
    return tensor;
  }
  if (count === 0) return createTensor(dtype, dims);
  throw TsgeError.of('TSGE-E3305', { parameter: name, reason: 'it has no data (raw_data, typed values or external_data)' });
}

const text = (b: Uint8Array | null | undefined): string => (b ? new TextDecoder().decode(b) : '');

/** Decodes an attribute of the 1.x layout (type + ref_attr_name) or the 2.x one (nested values). */
export function decodeAttr(a: mind_ir.IAttributeProto, where: string, depth = 0): AttrJs {
  if (depth > 32) throw TsgeError.of('TSGE-E3308', { what: `attribute nesting at ${where}`, actual: depth, limit: 32 });
  const type = a.type ?? 0;
  const ref = a.ref_attr_name ?? '';
  if (type === T.UMONAD || type === T.IOMONAD || ref.startsWith('Monad:')) return { monad: true };
  if (type === T.NONE) return { none: true };
  if (type === T.TUPLE || type === T.LIST) return (a.values ?? []).map((v) => decodeAttr(v, where, depth + 1));
  const isList = /^scalar:(Tuple|List)\[/.test(ref);
  switch (type) {
    case T.TENSOR:
      return decodeTensor(a.t ?? a.tensors?.[0] ?? {}, `${where} ${a.name ?? ''}`);
    case T.TENSORS: {
      const list = (a.tensors ?? []).map((t, i) => decodeTensor(t, `${where} ${a.name ?? ''}[${i}]`));
      return list.length === 1 && !isList ? (list[0] as HostTensor) : list;
    }
    case T.STRING: {
      if (a.strings?.length || isList) {
        const list = (a.strings ?? []).map(text);
        return isList || list.length > 1 ? list : (list[0] as string);
      }
      return text(a.s);
    }
    case T.BOOL:
      if (a.ints?.length || isList) return (a.ints ?? []).map((v) => num(v) !== 0);
      return num(a.i) !== 0;
    case T.FLOAT:
    case T.DOUBLE:
      if (a.floats?.length || a.doubles?.length || isList) return [...(a.floats ?? []), ...(a.doubles ?? [])].map(Number);
      return type === T.FLOAT ? (a.f ?? 0) : (a.d ?? 0);
    case T.UINT8:
    case T.INT8:
    case T.UINT16:
    case T.INT16:
    case T.INT32:
    case T.INT64:
    case T.UINT32:
    case T.UINT64:
      if (a.ints?.length || isList) return (a.ints ?? []).map(num);
      return num(a.i);
    default:
      if (a.t) return decodeTensor(a.t, `${where} ${a.name ?? ''}`);
      if (a.ints?.length) return a.ints.map(num);
      if (a.s?.length) return text(a.s);
      return num(a.i);
  }
}
