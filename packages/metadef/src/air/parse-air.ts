import { ge } from '../generated/ge-ir.js';
import type { Diagnostic } from '../errors/diagnostic.js';
import { TsgeError, diagnostic } from '../errors/tsge-error.js';
import { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import { ONNX_DOMAIN, createOpDesc } from '../graph/op-desc.js';
import type { TensorDesc } from '../types/tensor-desc.js';
import {
  AIR_FORMAT_VERSION,
  AIR_LIMITS,
  ATTR_AIR_VERSION,
  ATTR_DOMAIN,
  ATTR_INPUT_NAMES,
  ATTR_OUTPUT_COUNT,
  ATTR_OUTPUT_NAMES,
  ATTR_PARENT_GRAPH,
  ATTR_PARENT_NODE,
  RESERVED_GRAPH_ATTRS,
  RESERVED_OP_ATTRS,
} from './air-format.js';
import { DecodeContext } from './decode.js';
import { int64ToNumber } from './int64.js';

export interface ParseAirOptions {
  /** Named in diagnostics. */
  readonly fileName?: string;
}

export interface ParseAirResult {
  /** The root graph with its subgraphs; undefined when any error was found. */
  readonly graph: Graph | undefined;
  readonly diagnostics: Diagnostic[];
}

/**
 * Reads a `.air` file (a `ge.proto.ModelDef`). Never throws: truncated, oversized or malformed
 * input gives diagnostics (TSGE-E2xxx) naming what is wrong and where.
 */
export function parseAir(bytes: Uint8Array, options: ParseAirOptions = {}): ParseAirResult {
  const file = options.fileName;
  const location = file !== undefined ? { file } : undefined;
  if (!(bytes instanceof Uint8Array)) {
    return { graph: undefined, diagnostics: [diagnostic('TSGE-E2001', { format: 'air', reason: 'input is not a Uint8Array' }, location)] };
  }
  let model: ge.proto.ModelDef;
  try {
    model = ge.proto.ModelDef.decode(bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const code = /index out of range/.test(reason) ? 'TSGE-E2003' : 'TSGE-E2001';
    return { graph: undefined, diagnostics: [diagnostic(code, { format: 'air', reason }, location)] };
  }
  const context = new DecodeContext(file);
  try {
    const graph = buildModel(model, context);
    return { graph: context.hasErrors ? undefined : graph, diagnostics: context.diagnostics };
  } catch (error) {
    // a safety net: a bug here must still not escape as a raw exception
    if (TsgeError.isInstance(error)) return { graph: undefined, diagnostics: [...context.diagnostics, ...error.diagnostics] };
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { graph: undefined, diagnostics: [...context.diagnostics, diagnostic('TSGE-E2001', { format: 'air', reason }, location)] };
  }
}

function buildModel(model: ge.proto.ModelDef, context: DecodeContext): Graph | undefined {
  context.at();
  const version = model.attr?.[ATTR_AIR_VERSION];
  if (version && Object.hasOwn(version, 'i') && int64ToNumber(version.i) > AIR_FORMAT_VERSION) {
    context.report('TSGE-E2002', { format: 'air', version: int64ToNumber(version.i), known: `1..${AIR_FORMAT_VERSION}` });
    return undefined;
  }
  const defs = model.graph ?? [];
  if (defs.length === 0) {
    context.report('TSGE-E2001', { format: 'air', reason: 'the model has no graph' });
    return undefined;
  }
  if (defs.length > AIR_LIMITS.graphs) {
    context.report('TSGE-E2004', { format: 'air', what: 'graph count', actual: defs.length, limit: AIR_LIMITS.graphs });
    return undefined;
  }
  const nodeCount = defs.reduce((sum, g) => sum + (g.op?.length ?? 0), 0);
  if (nodeCount > AIR_LIMITS.nodes) {
    context.report('TSGE-E2004', { format: 'air', what: 'node count', actual: nodeCount, limit: AIR_LIMITS.nodes });
    return undefined;
  }

  const graphs = new Map<string, Graph>();
  const built: { graph: Graph; def: ge.proto.IGraphDef; nodes: Map<ge.proto.IOpDef, Node> }[] = [];
  for (const def of defs) {
    const name = def.name ?? '';
    context.at(name);
    if (graphs.has(name)) {
      context.report('TSGE-E2109', { graph: name });
      continue;
    }
    const graph = new Graph(name);
    graphs.set(name, graph);
    for (const [key, value] of context.attrMap(def.attr, `graph ${name}`, RESERVED_GRAPH_ATTRS)) graph.attrs.set(key, value);
    built.push({ graph, def, nodes: addNodes(graph, def, context) });
  }
  for (const { graph, nodes } of built) linkEdges(graph, nodes, context);
  const root = built[0]?.graph;
  if (!root) return undefined;
  const parents = indexParents(built);
  for (const { graph, def } of built.slice(1)) attachSubgraph(root, graph, def, parents, context);
  // every subgraph a node calls must be in the file
  for (const { graph } of built) {
    for (const node of graph.nodes) {
      for (const sub of node.opDesc.subgraphNames) {
        if (!root.subgraphs.has(sub)) {
          context.at(graph.name, node.name);
          context.report('TSGE-E2107', { node: node.name, subgraph: sub });
        }
      }
    }
  }
  return root;
}

function stringList(context: DecodeContext, op: ge.proto.IOpDef, name: string): string[] {
  const def = op.attr?.[name];
  if (!def) return [];
  const value = context.attr(def, `attribute ${name} of node ${op.name ?? ''}`);
  return value?.kind === 'strings' ? [...value.value] : [];
}

function addNodes(graph: Graph, def: ge.proto.IGraphDef, context: DecodeContext): Map<ge.proto.IOpDef, Node> {
  const nodes = new Map<ge.proto.IOpDef, Node>();
  const names = new Set<string>();
  for (const op of def.op ?? []) {
    const name = op.name ?? '';
    context.at(graph.name, name);
    if (names.has(name)) {
      context.report('TSGE-E2103', { node: name, graph: graph.name });
      continue;
    }
    const where = `node ${name}`;
    const descs = (list: ge.proto.ITensorDescriptor[] | null | undefined, side: string): TensorDesc[] => {
      const out: TensorDesc[] = [];
      (list ?? []).forEach((d, i) => {
        const desc = context.tensorDesc(d, `${side} desc ${i} of ${where}`);
        if (desc) out.push(desc);
      });
      return out;
    };
    const domainAttr = op.attr?.[ATTR_DOMAIN];
    const domain = domainAttr ? context.attr(domainAttr, `attribute ${ATTR_DOMAIN} of ${where}`) : undefined;
    const desc = createOpDesc({
      name,
      type: op.type ?? '',
      domain: domain?.kind === 'string' ? domain.value : ONNX_DOMAIN,
      attrs: context.attrMap(op.attr, where, RESERVED_OP_ATTRS),
      inputDescs: descs(op.input_desc, 'input'),
      outputDescs: descs(op.output_desc, 'output'),
      inputNames: stringList(context, op, ATTR_INPUT_NAMES),
      outputNames: stringList(context, op, ATTR_OUTPUT_NAMES),
      subgraphNames: [...(op.subgraph_name ?? [])],
    });
    if (Object.hasOwn(op, 'stream_id')) desc.streamId = int64ToNumber(op.stream_id);
    if (op.input_i?.length) desc.inputOffsets = op.input_i.map(int64ToNumber);
    if (op.output_i?.length) desc.outputOffsets = op.output_i.map(int64ToNumber);
    if (op.workspace_bytes?.length) desc.workspaceBytes = op.workspace_bytes.map(int64ToNumber);
    const outputCountAttr = op.attr?.[ATTR_OUTPUT_COUNT];
    const outputs = outputCountAttr && Object.hasOwn(outputCountAttr, 'i') ? int64ToNumber(outputCountAttr.i) : desc.outputDescs.length;
    const dataInputs = (op.input ?? []).filter((s) => !s.endsWith(':-1')).length;
    // the bound keeps a forged count from allocating anchors the file cannot justify
    if (outputs < 0 || outputs > Math.max(desc.outputDescs.length, 4096)) {
      context.report('TSGE-E2108', { where, reason: `output count ${outputs} is out of range` });
      continue;
    }
    names.add(name);
    nodes.set(op, graph.addNode(desc, { inputs: dataInputs, outputs }));
  }
  return nodes;
}

/** Splits "producer:index" at the last colon (names may contain colons); no colon means output 0. */
function parseInput(value: string): { producer: string; index: number } | undefined {
  const colon = value.lastIndexOf(':');
  if (colon < 0) return { producer: value, index: 0 };
  const indexText = value.slice(colon + 1);
  if (!/^-?\d{1,9}$/.test(indexText)) return undefined;
  const index = Number(indexText);
  return index < -1 ? undefined : { producer: value.slice(0, colon), index };
}

function linkEdges(graph: Graph, nodes: ReadonlyMap<ge.proto.IOpDef, Node>, context: DecodeContext): void {
  const byName = new Map<string, Node>();
  for (const node of nodes.values()) byName.set(node.name, node);
  for (const [op, node] of nodes) {
    context.at(graph.name, node.name);
    let dataIndex = 0;
    for (const value of op.input ?? []) {
      if (value === '') {
        dataIndex++;
        continue;
      }
      const parsed = parseInput(value);
      const slot = parsed?.index === -1 ? 'control' : dataIndex;
      if (!parsed) {
        context.report('TSGE-E2108', { where: `input ${dataIndex} of node ${node.name}`, reason: `"${value}" is not "producer:index"` });
        dataIndex++;
        continue;
      }
      if (parsed.index !== -1) dataIndex++;
      const producer = byName.get(parsed.producer);
      if (!producer) {
        context.report('TSGE-E2101', { node: node.name, index: slot, producer: parsed.producer });
        continue;
      }
      if (parsed.index === -1) {
        graph.addControlEdge(producer, node);
        continue;
      }
      const out = producer.outData[parsed.index];
      const into = node.inData[slot as number];
      if (!out) {
        context.report('TSGE-E2102', {
          node: node.name,
          index: slot,
          output: parsed.index,
          producer: producer.name,
          count: producer.outData.length,
        });
        continue;
      }
      if (into) graph.link(out, into);
    }
  }
}

/** Lookups built once so attaching many subgraphs stays linear. */
interface ParentIndex {
  readonly nodesByGraph: ReadonlyMap<string, ReadonlyMap<string, Node>>;
  /** For plain GE files: the first node that lists a subgraph in subgraph_name. */
  readonly callerOf: ReadonlyMap<string, Node>;
}

function indexParents(built: readonly { graph: Graph; nodes: ReadonlyMap<ge.proto.IOpDef, Node> }[]): ParentIndex {
  const nodesByGraph = new Map<string, Map<string, Node>>();
  const callerOf = new Map<string, Node>();
  for (const { graph, nodes } of built) {
    const byName = new Map<string, Node>();
    for (const node of nodes.values()) {
      byName.set(node.name, node);
      for (const sub of node.opDesc.subgraphNames) if (!callerOf.has(sub)) callerOf.set(sub, node);
    }
    nodesByGraph.set(graph.name, byName);
  }
  return { nodesByGraph, callerOf };
}

function attachSubgraph(root: Graph, graph: Graph, def: ge.proto.IGraphDef, parents: ParentIndex, context: DecodeContext): void {
  context.at(graph.name);
  const nameAttr = (key: string): string | undefined => {
    const value = def.attr?.[key];
    return value && Object.hasOwn(value, 's') ? new TextDecoder().decode(value.s as Uint8Array) : undefined;
  };
  let parent: Node | undefined;
  const parentName = nameAttr(ATTR_PARENT_NODE);
  if (parentName !== undefined) {
    parent = parents.nodesByGraph.get(nameAttr(ATTR_PARENT_GRAPH) ?? root.name)?.get(parentName);
    if (!parent) {
      context.report('TSGE-E2106', { subgraph: graph.name, reason: `parent node ${parentName} not found` });
      return;
    }
  } else {
    // plain GE files: the node that lists this graph in subgraph_name is its parent
    parent = parents.callerOf.get(graph.name);
    if (!parent) {
      context.report('TSGE-E2106', { subgraph: graph.name, reason: 'no node calls it' });
      return;
    }
  }
  if (graph === root || root.subgraphs.has(graph.name)) return;
  root.addSubgraph(graph, parent);
}
