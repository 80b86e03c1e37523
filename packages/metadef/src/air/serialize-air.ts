import { ge } from '../generated/ge-ir.js';
import type { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import { ONNX_DOMAIN, normalizeDomain } from '../graph/op-desc.js';
import {
  AIR_FORMAT_VERSION,
  ATTR_AIR_VERSION,
  ATTR_DOMAIN,
  ATTR_INPUT_NAMES,
  ATTR_OUTPUT_COUNT,
  ATTR_OUTPUT_NAMES,
  ATTR_PARENT_GRAPH,
  ATTR_PARENT_NODE,
} from './air-format.js';
import { encodeAttr, encodeAttrMap, encodeTensorDesc } from './encode.js';
import { saturate } from './int64.js';

export interface SerializeAirOptions {
  /** `ModelDef.name`; defaults to the root graph's name. */
  readonly modelName?: string;
}

const utf8 = new TextEncoder();

/**
 * Writes a graph tree as a `.air` file: the bytes of a `ge.proto.ModelDef` whose graph[0] is the
 * root graph (the root of `graph`'s tree) followed by every subgraph. See the package README for
 * the mapping.
 */
export function serializeAir(graph: Graph, options: SerializeAirOptions = {}): Uint8Array {
  const root = graph.root;
  const model: ge.proto.IModelDef = {
    name: options.modelName ?? root.name,
    graph: [encodeGraph(root), ...[...root.subgraphs.values()].map(encodeGraph)],
    attr: { [ATTR_AIR_VERSION]: { i: AIR_FORMAT_VERSION } },
  };
  const bytes = ge.proto.ModelDef.encode(model).finish();
  // a plain Uint8Array that owns its memory: protobufjs may hand out a Buffer over a shared pool
  // (small outputs); a large output already owns its ArrayBuffer and is only re-viewed, not copied
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return new Uint8Array(bytes.buffer);
  return new Uint8Array(bytes);
}

const edge = (node: Node, index: number): string => `${node.name}:${index}`;

function encodeGraph(graph: Graph): ge.proto.IGraphDef {
  const nodes = graph.nodes;
  const attr = encodeAttrMap(graph.attrs);
  const parent = graph.parentNode;
  if (parent) {
    attr[ATTR_PARENT_NODE] = { s: utf8.encode(parent.name) };
    if (parent.graph) attr[ATTR_PARENT_GRAPH] = { s: utf8.encode(parent.graph.name) };
  }
  const output = graph.outputNode();
  return {
    name: graph.name,
    // informational, as GE writes them: inputs by Data index, outputs as NetOutput's producers
    input: graph.inputNodes().map((n) => edge(n, 0)),
    output: output ? output.inData.flatMap((a) => (a.peer ? [edge(a.peer.node, a.peer.index)] : [])) : [],
    op: nodes.map(encodeNode),
    attr,
  };
}

function encodeNode(node: Node): ge.proto.IOpDef {
  const desc = node.opDesc;
  const attr = encodeAttrMap(desc.attrs);
  const domain = normalizeDomain(desc.domain);
  if (domain !== ONNX_DOMAIN) attr[ATTR_DOMAIN] = encodeAttr({ kind: 'string', value: domain });
  if (desc.inputNames.length > 0) attr[ATTR_INPUT_NAMES] = encodeAttr({ kind: 'strings', value: desc.inputNames });
  if (desc.outputNames.length > 0) attr[ATTR_OUTPUT_NAMES] = encodeAttr({ kind: 'strings', value: desc.outputNames });
  if (node.outData.length !== desc.outputDescs.length) attr[ATTR_OUTPUT_COUNT] = { i: node.outData.length };
  // every data input (an omitted optional one as ''), then control inputs as "producer:-1"
  const input = [
    ...node.inData.map((a) => (a.peer ? edge(a.peer.node, a.peer.index) : '')),
    ...node.inControl.peers.map((p) => edge(p.node, -1)),
  ];
  const op: ge.proto.IOpDef = {
    name: desc.name,
    type: desc.type,
    input,
    attr,
    id: node.id,
    input_desc: desc.inputDescs.map(encodeTensorDesc),
    output_desc: desc.outputDescs.map(encodeTensorDesc),
    subgraph_name: [...desc.subgraphNames],
  };
  if (desc.streamId !== undefined) op.stream_id = saturate(desc.streamId);
  if (desc.inputOffsets) op.input_i = desc.inputOffsets.map(saturate);
  if (desc.outputOffsets) op.output_i = desc.outputOffsets.map(saturate);
  if (desc.workspaceBytes) op.workspace_bytes = desc.workspaceBytes.map(saturate);
  return op;
}
