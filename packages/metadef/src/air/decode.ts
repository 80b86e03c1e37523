import type { ge } from '../generated/ge-ir.js';
import type { Diagnostic, DiagnosticLocation } from '../errors/diagnostic.js';
import type { ErrorCode } from '../errors/catalog.js';
import { diagnostic } from '../errors/tsge-error.js';
import type { AttrMap, AttrValue, NamedAttrs } from '../types/attr.js';
import { type DataType, dataTypeFromGe, dataTypeFromOnnx, isDataType } from '../types/dtype.js';
import { type Format, isFormat } from '../types/format.js';
import type { Dim, Shape } from '../types/shape.js';
import type { HostTensor } from '../types/tensor.js';
import type { DimRange, TensorDesc } from '../types/tensor-desc.js';
import {
  AIR_LIMITS,
  ATTR_DTYPE,
  ATTR_ORIGIN_FORMAT,
  ATTR_ORIGIN_SHAPE,
  ATTR_ORIGIN_SYMBOLS,
  ATTR_SHAPE_RANGE,
  ATTR_SYMBOLS,
  ATTR_VALUE_KIND,
  PRIVATE_DTYPE_OFFSET,
} from './air-format.js';
import { type Int64Like, int64ToNumber } from './int64.js';
import { decodeTensorData } from './tensor-data.js';

type AttrDef = ge.proto.IAttrDef;
const utf8 = new TextDecoder();
const text = (bytes: Uint8Array | null | undefined): string => (bytes ? utf8.decode(bytes) : '');
// `new Uint8Array(x)` copies; Buffer#slice (Node Buffers come from fs and protobufjs) would only view.
const copyBytes = (bytes: Uint8Array | null | undefined): Uint8Array => (bytes ? new Uint8Array(bytes) : new Uint8Array(0));
const int64s = (values: readonly Int64Like[] | null | undefined): number[] => (values ?? []).map(int64ToNumber);
const floats = (values: readonly number[] | null | undefined): number[] => [...(values ?? [])];

/** Own keys of a decoded protobuf map (protobufjs stores maps as plain objects). */
export function mapEntries<T>(map: { [key: string]: T } | null | undefined): [string, T][] {
  if (!map) return [];
  return Object.keys(map).map((key) => [key, map[key] as T]);
}

/** Which field of an AttrDef's oneof is set (protobufjs assigns own properties when decoding). */
const ATTR_FIELDS = [
  'list',
  's',
  'i',
  'f',
  'b',
  'bt',
  'func',
  'td',
  't',
  'g',
  'list_list_int',
  'dt',
  'list_list_float',
  'expression',
] as const;

function setField(def: AttrDef): string | undefined {
  let found: string | undefined;
  const record = def as Record<string, unknown>;
  for (const f of ATTR_FIELDS) if (record[f] != null && Object.hasOwn(def, f)) found = f;
  return found;
}

/** Collects diagnostics while converting decoded messages into IR values. */
export class DecodeContext {
  readonly diagnostics: Diagnostic[] = [];
  readonly file: string | undefined;
  location: DiagnosticLocation = {};

  constructor(file: string | undefined) {
    this.file = file;
  }

  at(graph?: string, node?: string): void {
    this.location = {
      ...(this.file !== undefined ? { file: this.file } : {}),
      ...(graph !== undefined ? { graph } : {}),
      ...(node !== undefined ? { node } : {}),
    };
  }

  report(code: ErrorCode, args: Readonly<Record<string, unknown>>, severity: 'error' | 'warning' = 'error'): void {
    this.diagnostics.push(diagnostic(code, args, this.location, severity));
  }

  get hasErrors(): boolean {
    return this.diagnostics.some((d) => d.severity === 'error');
  }

  /** A `dt` attribute number: GE's numbering or tsge's private range. */
  attrDtype(value: Int64Like, where: string): DataType | undefined {
    const n = int64ToNumber(value);
    const dtype = n >= PRIVATE_DTYPE_OFFSET ? dataTypeFromOnnx(n - PRIVATE_DTYPE_OFFSET) : dataTypeFromGe(n);
    if (!dtype) this.report('TSGE-E2105', { where, dtype: n });
    return dtype;
  }

  attrMap(map: { [key: string]: AttrDef } | null | undefined, where: string, skip?: ReadonlySet<string>): AttrMap {
    const out: AttrMap = new Map();
    for (const [name, def] of mapEntries(map)) {
      if (skip?.has(name)) continue;
      if (def === null || def === undefined) {
        // a map entry without a value
        this.report('TSGE-E2108', { where: `attribute ${name} of ${where}`, reason: 'the attribute has no value' }, 'warning');
        continue;
      }
      const value = this.attr(def, `attribute ${name} of ${where}`);
      if (value) out.set(name, value);
    }
    return out;
  }

  attr(def: AttrDef, where: string): AttrValue | undefined {
    switch (setField(def)) {
      case 'i':
        return { kind: 'int', value: int64ToNumber(def.i) };
      case 'f':
        return { kind: 'float', value: def.f as number };
      case 's':
        return { kind: 'string', value: text(def.s) };
      case 'b':
        return { kind: 'bool', value: def.b === true };
      case 'bt':
        return { kind: 'bytes', value: copyBytes(def.bt) };
      case 'expression':
        return { kind: 'expression', value: text(def.expression) };
      case 'dt': {
        const dtype = this.attrDtype(def.dt, where);
        return dtype ? { kind: 'dtype', value: dtype } : undefined;
      }
      case 'g':
        // tsge refers to subgraphs by name; a body embedded here (older GE files) is not read
        if (def.g?.op?.length)
          this.report('TSGE-E2108', { where, reason: `the body of embedded graph ${def.g.name ?? ''} is ignored` }, 'warning');
        return { kind: 'graph', value: def.g?.name ?? '' };
      case 'func':
        return { kind: 'named_attrs', value: this.namedAttrs(def.func as ge.proto.INamedAttrs, where) };
      case 'td': {
        const desc = this.tensorDesc(def.td as ge.proto.ITensorDescriptor, where);
        return desc ? { kind: 'tensor_desc', value: desc } : undefined;
      }
      case 't': {
        const tensor = this.tensor(def.t as ge.proto.ITensorDef, where);
        return tensor ? { kind: 'tensor', value: tensor } : undefined;
      }
      case 'list_list_int':
        return { kind: 'list_list_int', value: (def.list_list_int?.list_list_i ?? []).map((row) => int64s(row.list_i)) };
      case 'list_list_float':
        return { kind: 'list_list_float', value: (def.list_list_float?.list_list_f ?? []).map((row) => floats(row.list_f)) };
      case 'list':
        return this.list(def.list as ge.proto.AttrDef.IListValue, where);
      default:
        this.report('TSGE-E2108', { where, reason: 'the attribute has no value' }, 'warning');
        return undefined;
    }
  }

  private list(list: ge.proto.AttrDef.IListValue, where: string): AttrValue | undefined {
    let type = Number(list.val_type ?? 0);
    if (type === 0) {
      // files without val_type: the first non-empty field decides; all empty reads as ints
      const byField: [number, unknown[] | null | undefined][] = [
        [1, list.s],
        [2, list.i],
        [3, list.f],
        [4, list.b],
        [5, list.bt],
        [6, list.td],
        [7, list.t],
        [8, list.g],
        [9, list.na],
        [10, list.dt],
      ];
      type = byField.find(([, values]) => (values?.length ?? 0) > 0)?.[0] ?? 2;
    }
    switch (type) {
      case 1:
        return { kind: 'strings', value: (list.s ?? []).map(text) };
      case 2:
        return { kind: 'ints', value: int64s(list.i) };
      case 3:
        return { kind: 'floats', value: floats(list.f) };
      case 4:
        return { kind: 'bools', value: (list.b ?? []).map((b) => b === true) };
      case 5:
        return { kind: 'bytes_list', value: (list.bt ?? []).map(copyBytes) };
      case 6: {
        const descs = (list.td ?? []).map((td) => this.tensorDesc(td, where));
        return descs.every((d) => d !== undefined) ? { kind: 'tensor_descs', value: descs as TensorDesc[] } : undefined;
      }
      case 7: {
        const tensors = (list.t ?? []).map((t) => this.tensor(t, where));
        return tensors.every((t) => t !== undefined) ? { kind: 'tensors', value: tensors as HostTensor[] } : undefined;
      }
      case 8:
        return { kind: 'graphs', value: (list.g ?? []).map((g) => g.name ?? '') };
      case 9:
        return { kind: 'named_attrs_list', value: (list.na ?? []).map((na) => this.namedAttrs(na, where)) };
      case 10: {
        const dtypes = (list.dt ?? []).map((dt) => this.attrDtype(dt, where));
        return dtypes.every((d) => d !== undefined) ? { kind: 'dtypes', value: dtypes as DataType[] } : undefined;
      }
      default:
        this.report('TSGE-E2108', { where, reason: `unknown list type ${type}` });
        return undefined;
    }
  }

  private namedAttrs(value: ge.proto.INamedAttrs, where: string): NamedAttrs {
    return { name: value.name ?? '', attrs: this.attrMap(value.attr, where) };
  }

  /** A shape from GE dims plus tsge's parallel symbol list; undefined (reported) when malformed. */
  private shape(dims: readonly number[], symbols: AttrValue | undefined, where: string): Shape | undefined {
    if (dims.length > AIR_LIMITS.rank) {
      this.report('TSGE-E2004', { format: 'air', what: `rank of ${where}`, actual: dims.length, limit: AIR_LIMITS.rank });
      return undefined;
    }
    const unknownRank = dims.length === 1 && dims[0] === -2;
    if (!unknownRank && dims.some((d) => d < -1)) {
      this.report('TSGE-E2108', { where, reason: `invalid dims [${dims.join(',')}]` });
      return undefined;
    }
    const names = symbols?.kind === 'strings' && symbols.value.length === dims.length ? symbols.value : undefined;
    return dims.map((d, i): Dim => (names?.[i] ? (names[i] as string) : d));
  }

  /** Data type of a descriptor: the GE number, or tsge's `_tsge_dtype` for types GE cannot name. */
  private descDtype(desc: ge.proto.ITensorDescriptor, attrs: AttrMap, where: string): DataType | undefined {
    const named = attrs.get(ATTR_DTYPE);
    if (named?.kind === 'string') {
      if (isDataType(named.value)) return named.value;
      this.report('TSGE-E2105', { where, dtype: named.value });
      return undefined;
    }
    const code = Number(desc.dtype ?? 0);
    if (code === 0) {
      this.report('TSGE-E2105', { where, dtype: 'DT_UNDEFINED (read as float32)' }, 'warning');
      return 'float32';
    }
    const dtype = dataTypeFromGe(code);
    if (!dtype) this.report('TSGE-E2105', { where, dtype: code });
    return dtype;
  }

  private format(value: string, where: string): Format {
    if (value === '') return 'ND';
    if (isFormat(value)) return value;
    this.report('TSGE-E2108', { where, reason: `unknown format ${value}, read as ND` }, 'warning');
    return 'ND';
  }

  tensorDesc(desc: ge.proto.ITensorDescriptor, where: string): TensorDesc | undefined {
    const attrs = this.attrMap(desc.attr, where);
    const dtype = this.descDtype(desc, attrs, where);
    const shape = this.shape(int64s(desc.shape?.dim), attrs.get(ATTR_SYMBOLS), where);
    const origin = attrs.get(ATTR_ORIGIN_SHAPE);
    const originShape = origin?.kind === 'ints' ? this.shape(origin.value, attrs.get(ATTR_ORIGIN_SYMBOLS), where) : shape;
    if (!dtype || !shape || !originShape) return undefined;
    const format = this.format(desc.layout ?? '', where);
    const originFormat = attrs.get(ATTR_ORIGIN_FORMAT);
    const out: TensorDesc = {
      dtype,
      shape,
      format,
      originShape: [...originShape],
      originFormat: originFormat?.kind === 'string' ? this.format(originFormat.value, where) : format,
    };
    const range = attrs.get(ATTR_SHAPE_RANGE);
    if (range?.kind === 'list_list_int') out.shapeRange = range.value.map((r): DimRange => [r[0] ?? 0, r[1] ?? -1]);
    const kind = attrs.get(ATTR_VALUE_KIND);
    if (kind?.kind === 'string' && (kind.value === 'tensor' || kind.value === 'sequence' || kind.value === 'optional'))
      out.valueKind = kind.value;
    return out;
  }

  tensor(def: ge.proto.ITensorDef, where: string): HostTensor | undefined {
    const desc = def.desc ?? {};
    const attrs = this.attrMap(desc.attr, where);
    const dtype = this.descDtype(desc, attrs, where);
    const dims = int64s(desc.shape?.dim);
    if (dims.length > AIR_LIMITS.rank) {
      this.report('TSGE-E2004', { format: 'air', what: `rank of the tensor in ${where}`, actual: dims.length, limit: AIR_LIMITS.rank });
      return undefined;
    }
    if (dims.some((d) => d < 0)) {
      this.report('TSGE-E2108', { where, reason: `tensor dims [${dims.join(',')}] are not static` });
      return undefined;
    }
    if (!dtype) return undefined;
    const data = def.data ?? new Uint8Array(0);
    const result = decodeTensorData(dtype, dims, data);
    if (!result.ok) {
      this.report('TSGE-E2104', { where, actual: data.length, dtype, dims: `[${dims.join(',')}]`, expected: result.expected });
      return undefined;
    }
    return result.tensor;
  }
}
