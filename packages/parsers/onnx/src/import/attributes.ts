import { type AttrValue, type HostTensor, type TensorDesc, attr } from '@tsge/metadef';
import { int64ToNumber } from '../internal/int64.js';
import { malformed } from '../internal/problem.js';
import type { IAttributeProto, IGraphProto } from '../internal/proto.js';
import type { RawNode } from './raw-node.js';
import type { TensorLoader } from './tensor-loader.js';
import { descOfType, readValueType } from './value-type.js';

const decoder = new TextDecoder('utf-8');
const has = (message: object, field: string): boolean => Object.hasOwn(message, field);

/** AttributeProto.AttributeType numbers. */
const TYPE = {
  FLOAT: 1,
  INT: 2,
  STRING: 3,
  TENSOR: 4,
  GRAPH: 5,
  FLOATS: 6,
  INTS: 7,
  STRINGS: 8,
  TENSORS: 9,
  GRAPHS: 10,
  SPARSE_TENSOR: 11,
  SPARSE_TENSORS: 12,
  TYPE_PROTO: 13,
  TYPE_PROTOS: 14,
} as const;

/** IR v1 attributes carry no type: infer it from the field that is set. */
function typeOf(a: IAttributeProto): number {
  if (a.type) return a.type;
  if (a.floats?.length) return TYPE.FLOATS;
  if (a.ints?.length) return TYPE.INTS;
  if (a.strings?.length) return TYPE.STRINGS;
  if (a.tensors?.length) return TYPE.TENSORS;
  if (a.graphs?.length) return TYPE.GRAPHS;
  if (has(a, 't')) return TYPE.TENSOR;
  if (has(a, 'g')) return TYPE.GRAPH;
  if (has(a, 's')) return TYPE.STRING;
  if (has(a, 'i')) return TYPE.INT;
  if (has(a, 'f')) return TYPE.FLOAT;
  if (has(a, 'sparseTensor')) return TYPE.SPARSE_TENSOR;
  if (has(a, 'tp')) return TYPE.TYPE_PROTO;
  return 0;
}

export type DecodedAttr = { readonly kind: 'value'; readonly value: AttrValue } | { readonly kind: 'graph'; readonly graph: IGraphProto };

/** Decodes one attribute (values, tensors, type protos); graph attributes stay protobuf. */
export async function decodeAttribute(a: IAttributeProto, loader: TensorLoader): Promise<DecodedAttr> {
  const value = (v: AttrValue): DecodedAttr => ({ kind: 'value', value: v });
  switch (typeOf(a)) {
    case TYPE.FLOAT:
      return value(attr.float(a.f ?? 0));
    case TYPE.INT:
      return value(attr.int(int64ToNumber(a.i)));
    case TYPE.STRING:
      return value(attr.string(decoder.decode(a.s ?? new Uint8Array())));
    case TYPE.TENSOR:
      if (!a.t) throw malformed(`attribute ${a.name ?? ''} has no tensor`);
      return value(attr.tensor(await loader.load(a.t)));
    case TYPE.SPARSE_TENSOR:
      if (!a.sparseTensor) throw malformed(`attribute ${a.name ?? ''} has no sparse tensor`);
      return value(attr.tensor(await loader.loadSparse(a.sparseTensor)));
    case TYPE.GRAPH:
      if (!a.g) throw malformed(`attribute ${a.name ?? ''} has no graph`);
      return { kind: 'graph', graph: a.g };
    case TYPE.FLOATS:
      return value(attr.floats([...(a.floats ?? [])]));
    case TYPE.INTS:
      return value(attr.ints((a.ints ?? []).map((i) => int64ToNumber(i))));
    case TYPE.STRINGS:
      return value(attr.strings((a.strings ?? []).map((s) => decoder.decode(s))));
    case TYPE.TENSORS: {
      const tensors: HostTensor[] = [];
      for (const t of a.tensors ?? []) tensors.push(await loader.load(t));
      return value(attr.tensors(tensors));
    }
    case TYPE.SPARSE_TENSORS: {
      const tensors: HostTensor[] = [];
      for (const t of a.sparseTensors ?? []) tensors.push(await loader.loadSparse(t));
      return value(attr.tensors(tensors));
    }
    case TYPE.TYPE_PROTO:
      return value(attr.tensorDesc(descOfType(readValueType(a.tp))));
    case TYPE.TYPE_PROTOS:
      return value(attr.tensorDescs((a.typeProtos ?? []).map((t): TensorDesc => descOfType(readValueType(t)))));
    case TYPE.GRAPHS:
      throw malformed(`attribute ${a.name ?? ''}: lists of graphs are not supported`);
    default:
      throw malformed(`attribute ${a.name ?? ''} has unknown type ${a.type ?? 0}`);
  }
}

/** Fills a raw node's attribute maps from the protobuf attributes. */
export async function decodeAttributes(list: readonly IAttributeProto[], node: RawNode, loader: TensorLoader): Promise<void> {
  for (const a of list) {
    const name = a.name ?? '';
    if (a.refAttrName) {
      node.refs.set(name, a.refAttrName);
      continue;
    }
    const decoded = await decodeAttribute(a, loader);
    if (decoded.kind === 'graph') node.graphs.set(name, decoded.graph);
    else node.attrs.set(name, decoded.value);
  }
}
