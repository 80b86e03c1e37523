import type { Graph, KernelV1, Node } from '@tsge/metadef';
import { CONST, DATA, NET_OUTPUT, createAttrReader, isStaticShape } from '@tsge/metadef';

/**
 * Asks each node's kernel for its plan (`KernelV1.plan`: implementation, tile sizes, thread split)
 * when every input's shape is static, and records the plan's attributes on the node, so the `.om`
 * carries them and neither binding nor the first run chooses. Returns the number of nodes planned.
 * Only for graphs with one static plan: gear plans share the nodes' attributes across shapes.
 */
export function recordKernelPlans(graph: Graph, kernelOf: (node: Node) => KernelV1 | undefined, threads: number): number {
  let planned = 0;
  for (const node of graph.nodes) {
    if (node.type === DATA || node.type === CONST || node.type === NET_OUTPUT) continue;
    const kernel = kernelOf(node);
    if (!kernel?.plan) continue;
    const inputs = node.inData.map((anchor) => {
      const p = anchor.peer;
      const desc = p ? p.node.opDesc.outputDescs[p.index] : undefined;
      return desc && isStaticShape(desc.shape) ? { dims: desc.shape as number[], type: desc.dtype } : undefined;
    });
    if (inputs.some((input, i) => !input && node.inData[i]?.peer)) continue;
    const attrs = kernel.plan({
      nodeName: node.name,
      opType: node.type,
      attrs: createAttrReader(node.opDesc.attrs),
      inputs,
      threads,
      outputCount: node.outData.length,
    });
    if (!attrs) continue;
    for (const [name, value] of attrs) node.opDesc.attrs.set(name, value);
    planned++;
  }
  return planned;
}
