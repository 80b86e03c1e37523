import type { ge } from '../generated/ge-ir.js';
import type { AttrValue, NamedAttrs } from '../types/attr.js';
import { type DataType, GE_DTYPE, ONNX_DTYPE } from '../types/dtype.js';
import type { Shape } from '../types/shape.js';
import type { HostTensor } from '../types/tensor.js';
import type { TensorDesc } from '../types/tensor-desc.js';
import {
  ATTR_DTYPE,
  ATTR_ORIGIN_FORMAT,
  ATTR_ORIGIN_SHAPE,
  ATTR_ORIGIN_SYMBOLS,
  ATTR_SHAPE_RANGE,
  ATTR_SYMBOLS,
  ATTR_VALUE_KIND,
  PRIVATE_DTYPE_OFFSET,
} from './air-format.js';
import { saturate } from './int64.js';
import { encodeTensorData } from './tensor-data.js';

type AttrDef = ge.proto.IAttrDef;
type ListType = ge.proto.AttrDef.ListValue.ListValueType;

const utf8 = new TextEncoder();
const text = (value: string): Uint8Array => utf8.encode(value);

/** `dt` attribute number: GE's when it has one, else the tsge-private range. */
export function dtypeToAttrNumber(dtype: DataType): number {
  return GE_DTYPE[dtype] ?? PRIVATE_DTYPE_OFFSET + ONNX_DTYPE[dtype];
}

export function encodeAttrMap(attrs: ReadonlyMap<string, AttrValue>): Record<string, AttrDef> {
  const out: Record<string, AttrDef> = {};
  for (const [name, value] of attrs) out[name] = encodeAttr(value);
  return out;
}

const list = (valueType: number, fields: Omit<ge.proto.AttrDef.IListValue, 'val_type'>): AttrDef => ({
  list: { ...fields, val_type: valueType as ListType },
});

export function encodeAttr(value: AttrValue): AttrDef {
  switch (value.kind) {
    case 'int':
      return { i: saturate(value.value) };
    case 'float':
      return { f: value.value };
    case 'string':
      return { s: text(value.value) };
    case 'bool':
      return { b: value.value };
    case 'bytes':
      return { bt: value.value };
    case 'tensor':
      return { t: encodeTensor(value.value) };
    case 'tensor_desc':
      return { td: encodeTensorDesc(value.value) };
    case 'graph':
      return { g: { name: value.value } };
    case 'named_attrs':
      return { func: encodeNamedAttrs(value.value) };
    case 'dtype':
      return { dt: dtypeToAttrNumber(value.value) };
    case 'expression':
      return { expression: text(value.value) };
    case 'strings':
      return list(1, { s: value.value.map(text) });
    case 'ints':
      return list(2, { i: value.value.map(saturate) });
    case 'floats':
      return list(3, { f: [...value.value] });
    case 'bools':
      return list(4, { b: [...value.value] });
    case 'bytes_list':
      return list(5, { bt: [...value.value] });
    case 'tensor_descs':
      return list(6, { td: value.value.map(encodeTensorDesc) });
    case 'tensors':
      return list(7, { t: value.value.map(encodeTensor) });
    case 'graphs':
      return list(8, { g: value.value.map((name) => ({ name })) });
    case 'named_attrs_list':
      return list(9, { na: value.value.map(encodeNamedAttrs) });
    case 'dtypes':
      return list(10, { dt: value.value.map(dtypeToAttrNumber) });
    case 'list_list_int':
      return { list_list_int: { list_list_i: value.value.map((row) => ({ list_i: row.map(saturate) })) } };
    case 'list_list_float':
      return { list_list_float: { list_list_f: value.value.map((row) => ({ list_f: [...row] })) } };
  }
}

function encodeNamedAttrs(value: NamedAttrs): ge.proto.INamedAttrs {
  return { name: value.name, attr: encodeAttrMap(value.attrs) };
}

/** Dims with symbols written as -1; the symbols go to a parallel string list. */
function encodeShape(shape: Shape): { dims: number[]; symbols: string[] | undefined } {
  const hasSymbol = shape.some((d) => typeof d === 'string');
  return {
    dims: shape.map((d) => (typeof d === 'string' ? -1 : saturate(d))),
    symbols: hasSymbol ? shape.map((d) => (typeof d === 'string' ? d : '')) : undefined,
  };
}

export function encodeTensorDesc(desc: TensorDesc): ge.proto.ITensorDescriptor {
  const attr: Record<string, AttrDef> = {};
  const geType = GE_DTYPE[desc.dtype];
  if (geType === undefined) attr[ATTR_DTYPE] = { s: text(desc.dtype) };
  const shape = encodeShape(desc.shape);
  if (shape.symbols) attr[ATTR_SYMBOLS] = list(1, { s: shape.symbols.map(text) });
  const origin = encodeShape(desc.originShape);
  attr[ATTR_ORIGIN_SHAPE] = list(2, { i: origin.dims });
  if (origin.symbols) attr[ATTR_ORIGIN_SYMBOLS] = list(1, { s: origin.symbols.map(text) });
  attr[ATTR_ORIGIN_FORMAT] = { s: text(desc.originFormat) };
  if (desc.shapeRange) attr[ATTR_SHAPE_RANGE] = encodeAttr({ kind: 'list_list_int', value: desc.shapeRange });
  if (desc.valueKind !== undefined) attr[ATTR_VALUE_KIND] = { s: text(desc.valueKind) };
  return { dtype: geType ?? 0, shape: { dim: shape.dims }, layout: desc.format, attr };
}

export function encodeTensor(tensor: HostTensor): ge.proto.ITensorDef {
  const geType = GE_DTYPE[tensor.type];
  const attr: Record<string, AttrDef> = geType === undefined ? { [ATTR_DTYPE]: { s: text(tensor.type) } } : {};
  return {
    desc: { dtype: geType ?? 0, shape: { dim: tensor.dims.map(saturate) }, layout: 'ND', attr },
    data: encodeTensorData(tensor),
  };
}
