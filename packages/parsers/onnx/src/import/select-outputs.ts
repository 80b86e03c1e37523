import {
  type Diagnostic,
  type Graph,
  NET_OUTPUT,
  type Node,
  type OutDataAnchor,
  createOpDesc,
  createTensorDesc,
  diagnostic,
} from '@tsge/metadef';

/**
 * `--out_nodes`: replaces the graph outputs by the given values. An entry is an ONNX value name,
 * a node name (its output 0) or `node:index`.
 */
export function selectOutputs(graph: Graph, specs: readonly string[], diagnostics: Diagnostic[]): void {
  const anchors: { anchor: OutDataAnchor; name: string }[] = [];
  const nodes = graph.nodes.filter((n) => n.type !== NET_OUTPUT);
  for (const spec of specs) {
    const anchor = findAnchor(nodes, graph, spec);
    if (!anchor) {
      diagnostics.push(diagnostic('TSGE-E5004', { node: spec }, { option: 'out_nodes' }));
      continue;
    }
    anchors.push({ anchor, name: anchor.node.opDesc.outputNames[anchor.index] || spec });
  }
  if (anchors.length !== specs.length) return;
  const old = graph.outputNode();
  if (old) graph.removeNode(old);
  const net = graph.addNode(
    createOpDesc({
      name: NET_OUTPUT,
      type: NET_OUTPUT,
      inputDescs: anchors.map((a) => ({ ...(a.anchor.node.opDesc.outputDescs[a.anchor.index] ?? createTensorDesc('float32', [-2])) })),
      inputNames: anchors.map((a) => a.name),
    }),
    { inputs: anchors.length, outputs: 0 },
  );
  anchors.forEach((a, i) => {
    graph.addEdge(a.anchor.node, a.anchor.index, net, i);
  });
}

function findAnchor(nodes: readonly Node[], graph: Graph, spec: string): OutDataAnchor | undefined {
  for (const n of nodes) {
    const i = n.opDesc.outputNames.indexOf(spec);
    if (i >= 0) return n.outData[i];
  }
  const colon = spec.lastIndexOf(':');
  if (colon > 0 && /^\d+$/.test(spec.slice(colon + 1))) {
    const node = graph.findNode(spec.slice(0, colon));
    return node?.outData[Number(spec.slice(colon + 1))];
  }
  return graph.findNode(spec)?.outData[0];
}
