import type { Diagnostic, Dim, Graph, InferenceContextV1, Node, OpRegistry, ValueInfo } from '@tsge/metadef';
import {
  CONST,
  DATA,
  NET_OUTPUT,
  constValueOf,
  createTensorDesc,
  diagnostic,
  inferNode,
  isStaticDim,
  isUnknownRank,
  shapeToString,
  topologicalSort,
  valueInfoOf,
} from '@tsge/metadef';
import { definePass } from '../pass-manager.js';
import { reshapeDims } from './shape-values.js';

/** Fresh symbol names unique within one compilation. */
export function symbolSource(): (hint?: string) => string {
  let counter = 0;
  return (hint = 's') => `${hint}_${++counter}`;
}

const MAX_SUBGRAPH_DEPTH = 32;

/**
 * Infers output descs of every node in topological order (subgraphs through `inferSubgraph`).
 * Returns diagnostics; a node whose inference fails keeps its previous descs.
 */
export function inferGraph(graph: Graph, ops: OpRegistry, newSymbol: (hint?: string) => string, depth = 0): Diagnostic[] {
  const sorted = topologicalSort(graph);
  if (!sorted.ok) return [diagnostic('TSGE-E1003', { nodes: sorted.cycle.map((n) => n.name).join(', ') }, { graph: graph.name })];
  const out: Diagnostic[] = [];
  for (const node of sorted.order) out.push(...inferOne(graph, node, ops, newSymbol, depth));
  return out;
}

export function inferOne(graph: Graph, node: Node, ops: OpRegistry, newSymbol: (hint?: string) => string, depth = 0): Diagnostic[] {
  const type = node.type;
  if (type === DATA) return checkShapes(graph, node);
  if (type === NET_OUTPUT) {
    node.inData.forEach((a, i) => {
      const d = a.peer ? a.peer.node.opDesc.outputDescs[a.peer.index] : undefined;
      if (d) node.opDesc.inputDescs[i] = { ...d, shape: [...d.shape], originShape: [...d.originShape] };
    });
    return [];
  }
  if (type === CONST) {
    const t = constValueOf(node);
    if (t) node.opDesc.outputDescs[0] = createTensorDesc(t.type, t.dims);
    return [];
  }
  const inferSubgraph: InferenceContextV1['inferSubgraph'] = (attrName, inputs) => {
    const a = node.opDesc.attrs.get(attrName);
    const sub = a?.kind === 'graph' ? graph.subgraph(a.value) : undefined;
    if (!sub || depth >= MAX_SUBGRAPH_DEPTH) return [];
    return inferSubgraphWith(sub, inputs, ops, newSymbol, depth + 1);
  };
  const diagnostics = inferNode(graph, node, ops, { newSymbol, inferSubgraph });
  if (diagnostics.length) return diagnostics;
  refineReshape(node);
  return checkShapes(graph, node);
}

/** A Reshape whose target is computed from shapes keeps the dims its shape value tells (`shape-values.ts`). */
function refineReshape(node: Node): void {
  const desc = node.opDesc.outputDescs[0];
  if (node.type !== 'Reshape' || !desc || isUnknownRank(desc.shape) || desc.shape.every(isStaticDim)) return;
  const dims = reshapeDims(node);
  if (!dims || dims.length !== desc.shape.length) return;
  const shape = desc.shape.map((d, i) => (d === -1 ? (dims[i] as Dim) : d));
  node.opDesc.outputDescs[0] = { ...desc, shape, originShape: [...shape] };
}

function validDim(d: Dim): boolean {
  return typeof d === 'string' ? d.length > 0 : Number.isSafeInteger(d) && d >= -1;
}

/** Inferred shapes must be usable: integer dims ≥ -1, symbols, or an unknown rank. */
function checkShapes(graph: Graph, node: Node): Diagnostic[] {
  for (const [i, d] of node.opDesc.outputDescs.entries()) {
    if (isUnknownRank(d.shape) || d.shape.every(validDim)) continue;
    const reason = `output ${i} has an invalid shape ${shapeToString(d.shape)}`;
    return [diagnostic('TSGE-E4001', { reason }, { graph: graph.name, node: node.name, opType: node.type, domain: node.opDesc.domain })];
  }
  return [];
}

function inferSubgraphWith(
  sub: Graph,
  inputs: readonly (ValueInfo | undefined)[],
  ops: OpRegistry,
  newSymbol: (hint?: string) => string,
  depth: number,
): (ValueInfo | undefined)[] {
  sub.inputNodes().forEach((data, i) => {
    const info = inputs[i];
    if (!info) return;
    const desc = createTensorDesc(info.dtype, info.shape);
    if (info.kind && info.kind !== 'tensor') desc.valueKind = info.kind;
    data.opDesc.outputDescs[0] = desc;
  });
  inferGraph(sub, ops, newSymbol, depth);
  const net = sub.outputNode();
  if (!net) return [];
  return net.inData.map((a) => {
    const d = a.peer ? a.peer.node.opDesc.outputDescs[a.peer.index] : undefined;
    return d ? valueInfoOf(d) : undefined;
  });
}

/** The shape/type inference pass (level 0: everything after it needs shapes). */
export function inferShapesPass(newSymbol: (hint?: string) => string) {
  return definePass({
    name: 'infer-shapes',
    level: 0,
    run(graph, ctx) {
      for (const d of inferGraph(graph, ctx.ops, newSymbol)) ctx.report(d);
      return { changed: false };
    },
  });
}
