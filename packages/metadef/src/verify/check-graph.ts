import type { Graph } from '../graph/graph.js';
import { ATTR_INDEX, ATTR_VALUE, CONST, DATA, NET_OUTPUT } from '../graph/op-desc.js';
import { topologicalSort } from '../graph/topo.js';
import { shapeToString } from '../types/shape.js';
import type { Reporter } from './reporter.js';

/** The graph is acyclic over data and control edges; a cycle is reported with its nodes. */
export function checkTopology(graph: Graph, report: Reporter): void {
  const sorted = topologicalSort(graph);
  if (!sorted.ok) report.graph('TSGE-E1003', graph, { nodes: sorted.cycle.map((n) => n.name).join(' -> ') });
}

/** The root has exactly one NetOutput; a subgraph at most one. */
export function checkNetOutput(graph: Graph, report: Reporter): void {
  const count = graph.nodes.filter((n) => n.type === NET_OUTPUT).length;
  if (graph.isRoot ? count !== 1 : count > 1) report.graph('TSGE-E1007', graph, { count });
}

/** Data nodes carry indices 0..n-1, each once. */
export function checkDataIndices(graph: Graph, report: Reporter): void {
  const data = graph.nodes.filter((n) => n.type === DATA);
  const seen = new Set<number>();
  for (const node of data) {
    const index = node.opDesc.attrs.get(ATTR_INDEX);
    const value = index?.kind === 'int' ? index.value : undefined;
    if (value === undefined || value < 0 || value >= data.length || seen.has(value)) {
      report.node('TSGE-E1008', graph, node, { index: value ?? '(none)' });
    }
    if (value !== undefined) seen.add(value);
  }
}

/** A Const holds a tensor whose dtype and dims match its output desc. */
export function checkConsts(graph: Graph, report: Reporter): void {
  for (const node of graph.nodes) {
    if (node.type !== CONST) continue;
    const value = node.opDesc.attrs.get(ATTR_VALUE);
    const out = node.opDesc.outputDescs[0];
    const tensor = value?.kind === 'tensor' ? value.value : undefined;
    const agrees =
      tensor !== undefined && out !== undefined && out.dtype === tensor.type && shapeToString(out.shape) === shapeToString(tensor.dims);
    if (!agrees) report.node('TSGE-E1013', graph, node, {});
  }
}
