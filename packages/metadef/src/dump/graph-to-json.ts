import type { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import type { AttrValue, NamedAttrs } from '../types/attr.js';
import type { Dim } from '../types/shape.js';
import { type HostTensor, readNumber, tensorElementCount } from '../types/tensor.js';
import type { TensorDesc } from '../types/tensor-desc.js';

/** Version of the JSON dump layout; bumped on any incompatible change. */
export const GRAPH_JSON_VERSION = 1;

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export interface GraphJsonOptions {
  /** How many leading values of each tensor to include (default 8). */
  readonly maxTensorValues?: number;
}

/** A readable JSON dump: `{ format, version, graph, subgraphs }`; safe for `JSON.stringify`. */
export interface GraphJson {
  readonly format: 'tsge-graph';
  readonly version: number;
  readonly graph: { readonly [key: string]: JsonValue };
  readonly subgraphs: readonly { readonly [key: string]: JsonValue }[];
}

/**
 * Dumps a graph tree as versioned, human-readable JSON. Tensors are summarized: dtype, dims,
 * element count and the first few values; bytes as their length and leading hex.
 */
export function graphToJson(graph: Graph, options: GraphJsonOptions = {}): GraphJson {
  const max = options.maxTensorValues ?? 8;
  const subgraphs = graph.isRoot ? [...graph.subgraphs.values()] : [];
  return {
    format: 'tsge-graph',
    version: GRAPH_JSON_VERSION,
    graph: graphJson(graph, max),
    subgraphs: subgraphs.map((g) => ({
      ...graphJson(g, max),
      parentNode: g.parentNode?.name ?? null,
      parentGraph: g.parentNode?.graph?.name ?? null,
    })),
  };
}

function graphJson(graph: Graph, max: number): { [key: string]: JsonValue } {
  return {
    name: graph.name,
    attrs: attrsJson(graph.attrs, max),
    inputs: graph.inputNodes().map((n) => n.name),
    outputs: (graph.outputNode()?.inData ?? []).map((a) => (a.peer ? `${a.peer.node.name}:${a.peer.index}` : null)),
    nodes: graph.nodes.map((n) => nodeJson(n, max)),
  };
}

function nodeJson(node: Node, max: number): { [key: string]: JsonValue } {
  const d = node.opDesc;
  const out: { [key: string]: JsonValue } = {
    name: d.name,
    type: d.type,
    domain: d.domain,
    inputs: node.inData.map((a) => (a.peer ? `${a.peer.node.name}:${a.peer.index}` : null)),
    controlInputs: node.inControl.peers.map((p) => p.node.name),
    attrs: attrsJson(d.attrs, max),
    inputDescs: d.inputDescs.map(descJson),
    outputDescs: d.outputDescs.map(descJson),
  };
  if (node.outData.length !== d.outputDescs.length) out.outputCount = node.outData.length;
  if (d.subgraphNames.length) out.subgraphs = [...d.subgraphNames];
  if (d.streamId !== undefined) out.streamId = d.streamId;
  if (d.inputOffsets) out.inputOffsets = [...d.inputOffsets];
  if (d.outputOffsets) out.outputOffsets = [...d.outputOffsets];
  if (d.workspaceBytes) out.workspaceBytes = [...d.workspaceBytes];
  return out;
}

const dimJson = (d: Dim): JsonValue => d;

export function descJson(d: TensorDesc): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = { dtype: d.dtype, shape: d.shape.map(dimJson), format: d.format };
  if (d.originFormat !== d.format || d.originShape.join() !== d.shape.join()) {
    out.originShape = d.originShape.map(dimJson);
    out.originFormat = d.originFormat;
  }
  if (d.shapeRange) out.shapeRange = d.shapeRange.map((r) => [r[0], r[1]]);
  if (d.valueKind) out.valueKind = d.valueKind;
  return out;
}

/** NaN and infinities are not JSON numbers: they become strings. */
const num = (n: number): JsonValue => (Number.isFinite(n) ? n : String(n));

function tensorJson(t: HostTensor, max: number): { [key: string]: JsonValue } {
  const count = tensorElementCount(t);
  const shown = Math.min(count, max);
  const values: JsonValue[] = [];
  for (let i = 0; i < shown; i++) {
    if (Array.isArray(t.data)) values.push(t.data[i] ?? '');
    else if (t.type === 'complex64' || t.type === 'complex128') values.push([num(Number(t.data[2 * i])), num(Number(t.data[2 * i + 1]))]);
    else if (t.type === 'int64' || t.type === 'uint64') {
      const v = t.data[i] as bigint;
      values.push(v >= BigInt(-Number.MAX_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString());
    } else values.push(num(readNumber(t, i)));
  }
  return { dtype: t.type, dims: [...t.dims], count, values, ...(count > shown ? { truncated: true } : {}) };
}

function bytesJson(b: Uint8Array): JsonValue {
  const head = Array.from(b.subarray(0, 16), (x) => x.toString(16).padStart(2, '0')).join('');
  return { length: b.length, hex: head + (b.length > 16 ? '…' : '') };
}

function namedJson(n: NamedAttrs, max: number): JsonValue {
  return { name: n.name, attrs: attrsJson(n.attrs, max) };
}

function attrsJson(attrs: ReadonlyMap<string, AttrValue>, max: number): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const [k, v] of attrs) out[k] = attrJson(v, max);
  return out;
}

function attrJson(a: AttrValue, max: number): JsonValue {
  const value = ((): JsonValue => {
    switch (a.kind) {
      case 'float':
        return num(a.value);
      case 'floats':
        return a.value.map(num);
      case 'bytes':
        return bytesJson(a.value);
      case 'bytes_list':
        return a.value.map(bytesJson);
      case 'tensor':
        return tensorJson(a.value, max);
      case 'tensors':
        return a.value.map((t) => tensorJson(t, max));
      case 'tensor_desc':
        return descJson(a.value);
      case 'tensor_descs':
        return a.value.map(descJson);
      case 'named_attrs':
        return namedJson(a.value, max);
      case 'named_attrs_list':
        return a.value.map((n) => namedJson(n, max));
      case 'list_list_float':
        return a.value.map((row) => row.map(num));
      case 'list_list_int':
        return a.value.map((row) => [...row]);
      default:
        return a.value as JsonValue;
    }
  })();
  return { kind: a.kind, value };
}
