import type { Graph } from '../graph/graph.js';
import { ATTR_PARENT_NODE_INDEX, DATA } from '../graph/op-desc.js';
import type { Reporter } from './reporter.js';

/**
 * Subgraph wiring: the root owns every subgraph under its own name; each has a parent node that
 * lives in the tree and lists it; every called or attribute-named subgraph exists; subgraph Data
 * nodes map to an existing parent input.
 */
export function checkSubgraphs(graph: Graph, report: Reporter): void {
  const root = graph.root;
  const tree = new Set<Graph>([root, ...root.subgraphs.values()]);
  const graphs = graph.isRoot ? [...tree] : [graph];
  for (const [name, sub] of graph.isRoot ? root.subgraphs : new Map([[graph.name, graph]])) {
    const parent = sub.parentNode;
    if (sub.owner !== root || sub.name !== name || !root.subgraphs.has(sub.name)) {
      report.graph('TSGE-E1011', sub, { node: parent?.name ?? '(none)', subgraph: name });
    }
    const parentOk =
      parent !== undefined &&
      parent.graph !== undefined &&
      tree.has(parent.graph) &&
      parent.graph.has(parent) &&
      parent.opDesc.subgraphNames.includes(name);
    if (!parentOk) {
      report.graph('TSGE-E1019', sub, {
        node: parent?.name ?? '(none)',
        subgraph: name,
        actual: parent?.name ?? '(none)',
        expected: 'a node in the tree that lists it',
      });
    } else if (!reachesRoot(sub, root, tree.size)) {
      report.graph('TSGE-E1011', sub, { node: parent.name, subgraph: name });
    }
    for (const node of sub.nodes) {
      if (node.type !== DATA) continue;
      const index = node.opDesc.attrs.get(ATTR_PARENT_NODE_INDEX);
      if (index === undefined) continue;
      const value = index.kind === 'int' ? index.value : -1;
      if (parent && (value < 0 || value >= parent.inData.length)) report.node('TSGE-E1012', sub, node, { subgraph: name, index: value });
    }
  }
  // graph names are unique across the tree (the .air format finds parent graphs by name)
  if (graph.isRoot && root.subgraphs.has(root.name)) report.graph('TSGE-E1022', root, { subgraph: root.name });
  for (const g of graphs) {
    for (const node of g.nodes) {
      const called = new Set(node.opDesc.subgraphNames);
      for (const a of node.opDesc.attrs.values()) {
        if (a.kind === 'graph') called.add(a.value);
        if (a.kind === 'graphs') for (const n of a.value) called.add(n);
      }
      for (const name of called) {
        const sub = root.subgraphs.get(name);
        if (!sub) report.node('TSGE-E1020', g, node, { subgraph: name });
        else if (sub.parentNode !== node) {
          report.node('TSGE-E1019', g, node, { subgraph: name, actual: sub.parentNode?.name ?? '(none)', expected: node.name });
        }
      }
    }
  }
}

/** Following parent nodes from `sub` reaches the root without looping. */
function reachesRoot(sub: Graph, root: Graph, limit: number): boolean {
  let g: Graph | undefined = sub;
  for (let steps = 0; g && steps <= limit; steps++) {
    if (g === root) return true;
    g = g.parentNode?.graph;
  }
  return false;
}
