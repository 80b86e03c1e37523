import type { Diagnostic, Dim, Graph, OutDataAnchor } from '@tsge/metadef';
import { DATA, NET_OUTPUT, createOpDesc, createTensorDesc, diagnostic } from '@tsge/metadef';

/** Applies `--input_shape` overrides to the graph's Data nodes. */
export function applyInputShapes(graph: Graph, shapes: Readonly<Record<string, Dim[]>>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const inputs = graph.inputNodes();
  for (const [name, shape] of Object.entries(shapes)) {
    const data = inputs.find((n) => n.name === name || n.opDesc.outputNames[0] === name);
    if (!data) {
      out.push(
        diagnostic(
          'TSGE-E5005',
          { reason: `the model has no input ${name}; inputs are ${inputs.map((n) => n.name).join(', ')}` },
          { option: 'input_shape' },
        ),
      );
      continue;
    }
    if (!shape.every((d) => (typeof d === 'number' && Number.isSafeInteger(d) && d >= -1) || (typeof d === 'string' && d.length > 0))) {
      out.push(diagnostic('TSGE-E5005', { reason: `shape of ${name} has an invalid dim` }, { option: 'input_shape' }));
      continue;
    }
    const old = data.opDesc.outputDescs[0];
    const desc = createTensorDesc(old?.dtype ?? 'float32', shape, old?.format ?? 'ND');
    data.opDesc.outputDescs[0] = desc;
    data.opDesc.inputDescs[0] = { ...desc };
  }
  return out;
}

/** Rebuilds NetOutput from `--out_nodes` entries (`node` = all its outputs, or `node:index`). */
export function selectOutputs(graph: Graph, outNodes: readonly string[]): Diagnostic[] {
  const anchors: OutDataAnchor[] = [];
  const out: Diagnostic[] = [];
  for (const entry of outNodes) {
    const match = /^(.*?)(?::(\d+))?$/.exec(entry.trim());
    const name = match?.[1] ?? entry;
    const node = graph.findNode(name);
    const index = match?.[2] !== undefined ? Number(match[2]) : undefined;
    if (!node || node.type === NET_OUTPUT || (index !== undefined && !node.outData[index])) {
      out.push(diagnostic('TSGE-E5004', { node: entry }, { option: 'out_nodes' }));
      continue;
    }
    if (index !== undefined) anchors.push(node.outData[index] as OutDataAnchor);
    else anchors.push(...node.outData);
  }
  if (out.length || anchors.length === 0) return out;
  const old = graph.outputNode();
  if (old) graph.removeNode(old);
  const net = graph.addNode(
    createOpDesc({
      name: NET_OUTPUT,
      type: NET_OUTPUT,
      inputDescs: anchors.map((a) => ({ ...(a.node.opDesc.outputDescs[a.index] ?? createTensorDesc('float32', [-2])) })),
      inputNames: anchors.map((a) =>
        a.node.type === DATA ? a.node.name : (a.node.opDesc.outputNames[a.index] ?? `${a.node.name}:${a.index}`),
      ),
    }),
    { inputs: anchors.length, outputs: 0 },
  );
  for (const [i, a] of anchors.entries()) graph.addEdge(a.node, a.index, net, i);
  return out;
}
