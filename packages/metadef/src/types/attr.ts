import type { DataType } from './dtype.js';
import type { HostTensor } from './tensor.js';
import type { TensorDesc } from './tensor-desc.js';

/** Named attributes (GE `NamedAttrs`, TensorFlow's function attr). */
export interface NamedAttrs {
  readonly name: string;
  readonly attrs: ReadonlyMap<string, AttrValue>;
}

/**
 * An attribute value: a tagged union covering every GE `AttrDef` kind.
 * Integers are JS numbers; int64 values outside ±(2^53-1) are saturated there when read.
 * A `graph` attribute names a subgraph owned by the root graph.
 */
export type AttrValue =
  | { readonly kind: 'int'; readonly value: number }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'bytes'; readonly value: Uint8Array }
  | { readonly kind: 'tensor'; readonly value: HostTensor }
  | { readonly kind: 'tensor_desc'; readonly value: TensorDesc }
  | { readonly kind: 'graph'; readonly value: string }
  | { readonly kind: 'named_attrs'; readonly value: NamedAttrs }
  | { readonly kind: 'dtype'; readonly value: DataType }
  | { readonly kind: 'expression'; readonly value: string }
  | { readonly kind: 'ints'; readonly value: readonly number[] }
  | { readonly kind: 'floats'; readonly value: readonly number[] }
  | { readonly kind: 'strings'; readonly value: readonly string[] }
  | { readonly kind: 'bools'; readonly value: readonly boolean[] }
  | { readonly kind: 'bytes_list'; readonly value: readonly Uint8Array[] }
  | { readonly kind: 'tensors'; readonly value: readonly HostTensor[] }
  | { readonly kind: 'tensor_descs'; readonly value: readonly TensorDesc[] }
  | { readonly kind: 'graphs'; readonly value: readonly string[] }
  | { readonly kind: 'named_attrs_list'; readonly value: readonly NamedAttrs[] }
  | { readonly kind: 'dtypes'; readonly value: readonly DataType[] }
  | { readonly kind: 'list_list_int'; readonly value: readonly (readonly number[])[] }
  | { readonly kind: 'list_list_float'; readonly value: readonly (readonly number[])[] };

export type AttrKind = AttrValue['kind'];
export type AttrMap = Map<string, AttrValue>;

/** Shorthand constructors: `attr.int(3)`, `attr.ints([1, 2])`, ... */
export const attr = {
  int: (value: number): AttrValue => ({ kind: 'int', value }),
  float: (value: number): AttrValue => ({ kind: 'float', value }),
  string: (value: string): AttrValue => ({ kind: 'string', value }),
  bool: (value: boolean): AttrValue => ({ kind: 'bool', value }),
  bytes: (value: Uint8Array): AttrValue => ({ kind: 'bytes', value }),
  tensor: (value: HostTensor): AttrValue => ({ kind: 'tensor', value }),
  tensorDesc: (value: TensorDesc): AttrValue => ({ kind: 'tensor_desc', value }),
  graph: (subgraphName: string): AttrValue => ({ kind: 'graph', value: subgraphName }),
  namedAttrs: (value: NamedAttrs): AttrValue => ({ kind: 'named_attrs', value }),
  dtype: (value: DataType): AttrValue => ({ kind: 'dtype', value }),
  expression: (value: string): AttrValue => ({ kind: 'expression', value }),
  ints: (value: readonly number[]): AttrValue => ({ kind: 'ints', value }),
  floats: (value: readonly number[]): AttrValue => ({ kind: 'floats', value }),
  strings: (value: readonly string[]): AttrValue => ({ kind: 'strings', value }),
  bools: (value: readonly boolean[]): AttrValue => ({ kind: 'bools', value }),
  bytesList: (value: readonly Uint8Array[]): AttrValue => ({ kind: 'bytes_list', value }),
  tensors: (value: readonly HostTensor[]): AttrValue => ({ kind: 'tensors', value }),
  tensorDescs: (value: readonly TensorDesc[]): AttrValue => ({ kind: 'tensor_descs', value }),
  graphs: (value: readonly string[]): AttrValue => ({ kind: 'graphs', value }),
  namedAttrsList: (value: readonly NamedAttrs[]): AttrValue => ({ kind: 'named_attrs_list', value }),
  dtypes: (value: readonly DataType[]): AttrValue => ({ kind: 'dtypes', value }),
  listListInt: (value: readonly (readonly number[])[]): AttrValue => ({ kind: 'list_list_int', value }),
  listListFloat: (value: readonly (readonly number[])[]): AttrValue => ({ kind: 'list_list_float', value }),
} as const;

/** Typed, defaulting reads of an attribute map, used by inference functions and kernels. */
export interface AttrReader {
  has(name: string): boolean;
  get(name: string): AttrValue | undefined;
  int(name: string, fallback?: number): number;
  float(name: string, fallback?: number): number;
  string(name: string, fallback?: string): string;
  bool(name: string, fallback?: boolean): boolean;
  ints(name: string, fallback?: readonly number[]): readonly number[];
  floats(name: string, fallback?: readonly number[]): readonly number[];
  strings(name: string, fallback?: readonly string[]): readonly string[];
  tensor(name: string): HostTensor | undefined;
  dtype(name: string, fallback?: DataType): DataType;
  graph(name: string): string | undefined;
}

/** Thrown (as a plain Error, mapped to TSGE-E1016 by callers) when a required attr is missing. */
export class AttrError extends Error {
  constructor(
    readonly attrName: string,
    reason: string,
  ) {
    super(`attribute ${attrName}: ${reason}`);
    this.name = 'AttrError';
  }
}

export function createAttrReader(attrs: ReadonlyMap<string, AttrValue>): AttrReader {
  function need(name: string, kinds: readonly AttrKind[], fallback: unknown): AttrValue['value'] | undefined {
    const a = attrs.get(name);
    if (a === undefined) {
      if (fallback === undefined) throw new AttrError(name, 'is required but missing');
      return undefined;
    }
    if (!(kinds as readonly string[]).includes(a.kind)) throw new AttrError(name, `has kind ${a.kind}, expected ${kinds.join(' or ')}`);
    return a.value;
  }
  return {
    has: (name) => attrs.has(name),
    get: (name) => attrs.get(name),
    int: (name, fallback) => {
      const v = need(name, ['int', 'bool'], fallback);
      return v === undefined ? (fallback as number) : Number(v);
    },
    float: (name, fallback) => {
      const v = need(name, ['float', 'int'], fallback);
      return v === undefined ? (fallback as number) : (v as number);
    },
    string: (name, fallback) => {
      const v = need(name, ['string'], fallback);
      return v === undefined ? (fallback as string) : (v as string);
    },
    bool: (name, fallback) => {
      const v = need(name, ['bool', 'int'], fallback);
      return v === undefined ? (fallback as boolean) : Boolean(v);
    },
    ints: (name, fallback) => {
      const v = need(name, ['ints'], fallback);
      return v === undefined ? (fallback as readonly number[]) : (v as readonly number[]);
    },
    floats: (name, fallback) => {
      const v = need(name, ['floats', 'ints'], fallback);
      return v === undefined ? (fallback as readonly number[]) : (v as readonly number[]);
    },
    strings: (name, fallback) => {
      const v = need(name, ['strings'], fallback);
      return v === undefined ? (fallback as readonly string[]) : (v as readonly string[]);
    },
    tensor: (name) => {
      const a = attrs.get(name);
      return a?.kind === 'tensor' ? a.value : undefined;
    },
    dtype: (name, fallback) => {
      const v = need(name, ['dtype'], fallback);
      return v === undefined ? (fallback as DataType) : (v as DataType);
    },
    graph: (name) => {
      const a = attrs.get(name);
      return a?.kind === 'graph' ? a.value : undefined;
    },
  };
}
