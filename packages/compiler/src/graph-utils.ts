import type { Graph, HostTensor, Node, OutDataAnchor, TensorDesc } from '@tsge/metadef';
import { ATTR_VALUE, CONST, DTYPE_BYTES, attr, createOpDesc, createTensorDesc, shapeSize } from '@tsge/metadef';

export const ALIGNMENT = 64;

export function alignUp(value: number, alignment = ALIGNMENT): number {
  return Math.ceil(value / alignment) * alignment;
}

/** A node name not yet used in `graph`, derived from `base`. */
export function uniqueName(graph: Graph, base: string): string {
  if (!graph.findNode(base)) return base;
  for (let i = 1; ; i++) {
    const name = `${base}_${i}`;
    if (!graph.findNode(name)) return name;
  }
}

/** Adds a Const node holding `tensor`. */
export function addConst(graph: Graph, name: string, tensor: HostTensor): Node {
  return graph.addNode(
    createOpDesc({
      name: uniqueName(graph, name),
      type: CONST,
      attrs: [[ATTR_VALUE, attr.tensor(tensor)]],
      outputDescs: [createTensorDesc(tensor.type, tensor.dims)],
      outputNames: [name],
    }),
  );
}

/** Byte size of a tensor desc with a static shape; undefined otherwise. */
export function descBytes(desc: TensorDesc | undefined): number | undefined {
  if (!desc || (desc.valueKind !== undefined && desc.valueKind !== 'tensor')) return undefined;
  const n = shapeSize(desc.shape);
  return n === undefined ? undefined : n * DTYPE_BYTES[desc.dtype];
}

/** The output desc behind an anchor. */
export function anchorDesc(anchor: OutDataAnchor | undefined): TensorDesc | undefined {
  return anchor ? anchor.node.opDesc.outputDescs[anchor.index] : undefined;
}

/** Whether output `index` of `node` feeds exactly one input and nothing else consumes the node's outputs. */
export function hasSingleConsumer(node: Node, index = 0): boolean {
  let total = 0;
  for (const out of node.outData) total += out.peers.length;
  return total === 1 && node.outData[index]?.peers.length === 1 && node.outControl.peers.length === 0;
}

/** The only consumer of a node's output 0, when there is exactly one. */
export function soleConsumer(node: Node): Node | undefined {
  return hasSingleConsumer(node) ? node.outData[0]?.peers[0]?.node : undefined;
}

/** Number of linked data inputs, ignoring trailing omitted optionals. */
export function linkedInputCount(node: Node): number {
  let n = node.inData.length;
  while (n > 0 && !node.inData[n - 1]?.peer) n--;
  return n;
}
