import type { FusionMatch, Graph, Node, OutDataAnchor } from '@tsge/metadef';
import { cloneOpDesc } from '@tsge/metadef';
import { uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';

/**
 * Makes `conv` (a node of the match) read `input`, `weights` and `bias` and, when `producer` (the
 * other node of the match) consumes it, produce that node's result; the other node is removed.
 * A Conv with a bias input is updated in place, so it keeps its id and with it its place in the
 * order the memory planner schedules; one without gets a three-input copy.
 */
export function rewireConv(
  graph: Graph,
  match: FusionMatch,
  conv: Node,
  inputs: { input: OutDataAnchor; weights: OutDataAnchor; bias: OutDataAnchor },
): Node {
  const other = [...match.nodes.values()].find((n) => n !== conv) as Node;
  const last = match.outputs[0]?.node as Node;
  if (conv.inData.length < 3) {
    const desc = cloneOpDesc(conv.opDesc);
    desc.name = uniqueName(graph, `${conv.name}_${other.type.toLowerCase()}`);
    desc.outputDescs = [...last.opDesc.outputDescs.slice(0, 1)];
    desc.outputNames = [last.opDesc.outputNames[0] ?? desc.name];
    const fused = graph.addNode(desc, { inputs: 3, outputs: 1 });
    return replaceMatchWith(graph, match, fused, [inputs.input, inputs.weights, inputs.bias]);
  }
  const [input, weights, bias] = conv.inData as [Node['inData'][number], Node['inData'][number], Node['inData'][number]];
  graph.link(inputs.input, input);
  graph.link(inputs.weights, weights);
  graph.link(inputs.bias, bias);
  if (last !== conv) {
    conv.opDesc.outputDescs = [...last.opDesc.outputDescs.slice(0, 1)];
    conv.opDesc.outputNames = [last.opDesc.outputNames[0] ?? conv.name];
    graph.replaceAllUses(last.outData[0] as OutDataAnchor, conv.outData[0] as OutDataAnchor);
  }
  graph.removeNode(other);
  return conv;
}
