import type { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import { shapeToString } from '../types/shape.js';

export interface GraphDotOptions {
  /** Layout direction (default 'TB'). */
  readonly rankDir?: 'TB' | 'LR';
  /** Put output dtypes and shapes in node labels (default true). */
  readonly showShapes?: boolean;
}

/** A DOT string literal: escapes quotes and backslashes, turns newlines into line breaks, drops control characters. */
function quote(text: string): string {
  const escaped = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we remove
    .replace(/[\u0000-\u001f\u007f]/g, '');
  return `"${escaped}"`;
}

/**
 * Graphviz DOT of a graph tree: each node labelled with its name, op type and output shapes; data
 * edges solid (labelled with the output index when it is not 0), control edges dashed; each subgraph
 * a cluster, linked from its parent node by a dotted edge.
 */
export function graphToDot(graph: Graph, options: GraphDotOptions = {}): string {
  const showShapes = options.showShapes ?? true;
  const graphs = graph.isRoot ? [graph, ...graph.subgraphs.values()] : [graph];
  const ids = new Map<Node, string>();
  graphs.forEach((g, gi) => {
    g.nodes.forEach((n, ni) => {
      ids.set(n, `n${gi}_${ni}`);
    });
  });
  const id = (n: Node): string => ids.get(n) ?? 'missing';
  const lines = [
    `digraph ${quote(graph.name)} {`,
    `  rankdir=${options.rankDir ?? 'TB'};`,
    '  compound=true;',
    '  node [shape=box, fontname="Helvetica", fontsize=10];',
  ];

  const body = (g: Graph, indent: string): void => {
    for (const n of g.nodes) {
      const parts = [n.name, n.opDesc.domain === 'ai.onnx' ? n.type : `${n.opDesc.domain}::${n.type}`];
      if (showShapes) for (const d of n.opDesc.outputDescs) parts.push(`${d.dtype}${shapeToString(d.shape)}`);
      const shape = n.type === 'Data' || n.type === 'NetOutput' ? ', shape=ellipse' : n.type === 'Const' ? ', shape=note' : '';
      lines.push(`${indent}${id(n)} [label=${quote(parts.join('\n'))}${shape}];`);
    }
    for (const n of g.nodes) {
      for (const a of n.inData) {
        if (!a.peer || !ids.has(a.peer.node)) continue;
        const label = a.peer.index !== 0 || a.index !== 0 ? ` [label=${quote(`${a.peer.index}→${a.index}`)}]` : '';
        lines.push(`${indent}${id(a.peer.node)} -> ${id(n)}${label};`);
      }
      for (const p of n.inControl.peers) if (ids.has(p.node)) lines.push(`${indent}${id(p.node)} -> ${id(n)} [style=dashed];`);
    }
  };

  body(graphs[0] as Graph, '  ');
  graphs.slice(1).forEach((g, i) => {
    lines.push(`  subgraph cluster_${i} {`, `    label=${quote(g.name)};`, '    style=rounded;');
    body(g, '    ');
    lines.push('  }');
    const first = g.nodes[0];
    if (g.parentNode && ids.has(g.parentNode) && first)
      lines.push(`  ${id(g.parentNode)} -> ${id(first)} [style=dotted, lhead=cluster_${i}];`);
  });
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
