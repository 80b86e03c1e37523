import type { Graph, HostTensor, KernelRegistry, KernelV1, Node, RuntimeValue } from '@tsge/metadef';
import {
  ATTR_INDEX,
  ATTR_PARENT_NODE_INDEX,
  CONST,
  DATA,
  NET_OUTPUT,
  TsgeError,
  isHostTensor,
  opsetOf,
  topologicalSort,
} from '@tsge/metadef';
import { runKernelOnHost } from '@tsge/kernels-js';
import type { Deadline } from '../run/deadline.js';
import { kernelError, kernelFailure } from '../run/kernel-failure.js';

export interface SubgraphEnvironment {
  readonly root: Graph;
  readonly registry: KernelRegistry;
  /** The tensor of a Const node (from the weights or its value attribute). */
  constValue(node: Node): HostTensor | undefined;
  /** The run's deadline: a long Loop stops at the next body node once it has passed. */
  readonly deadline?: Deadline;
}

const orders = new WeakMap<Graph, readonly Node[]>();

/**
 * Interprets a subgraph on the host (If/Loop/Scan bodies): nodes in topological order, values as
 * JS tensors (freed by the garbage collector, so a long Loop does not hold device memory), each
 * node run by its reference kernel. Nested subgraphs recurse.
 */
export interface SubgraphRequest {
  /** The node whose kernel runs the subgraph, and the values of all its inputs. */
  readonly owner: Node;
  readonly ownerInputs: readonly (RuntimeValue | undefined)[];
  readonly attrName: string;
  /** The subgraph's formal inputs, from the kernel. */
  readonly inputs: readonly (RuntimeValue | undefined)[];
}

export function runSubgraph(environment: SubgraphEnvironment, request: SubgraphRequest): RuntimeValue[] {
  const { owner, ownerInputs, attrName, inputs } = request;
  const call = { node: owner.name, opType: owner.type, domain: owner.opDesc.domain };
  const attrValue = owner.opDesc.attrs.get(attrName);
  const name = attrValue?.kind === 'graph' ? attrValue.value : undefined;
  const graph = name !== undefined ? environment.root.subgraph(name) : undefined;
  if (!graph) throw kernelError(call, `attribute ${attrName} names no subgraph`);
  let order = orders.get(graph);
  if (!order) {
    const sorted = topologicalSort(graph);
    if (!sorted.ok) throw kernelError(call, `subgraph ${graph.name} has a cycle`);
    order = sorted.order;
    orders.set(graph, order);
  }
  const values = new Map<string, RuntimeValue | undefined>();
  const key = (node: Node, index: number): string => `${node.id}:${index}`;
  const inputOf = (node: Node, index: number): RuntimeValue | undefined => {
    const peer = node.inData[index]?.peer;
    return peer ? values.get(key(peer.node, peer.index)) : undefined;
  };
  let results: RuntimeValue[] | undefined;
  const deadline = environment.deadline;
  if (deadline?.expired()) throw deadline.error(`in subgraph ${graph.name} of node ${owner.name}`);
  for (const node of order) {
    const type = node.type;
    if (type === DATA) {
      // formal inputs come from the kernel; outer-scope captures (the parser's implicit inputs,
      // indexed after the formal ones) from the owner's inputs at `_parent_node_index`
      const position = intAttr(node, ATTR_INDEX) ?? 0;
      const implicit = node.opDesc.attrs.get('_implicit_input')?.value === true || position < 0 || position >= inputs.length;
      const parentIndex = intAttr(node, ATTR_PARENT_NODE_INDEX);
      values.set(key(node, 0), implicit ? (parentIndex !== undefined ? ownerInputs[parentIndex] : undefined) : inputs[position]);
    } else if (type === CONST) {
      values.set(key(node, 0), environment.constValue(node));
    } else if (type === NET_OUTPUT) {
      results = node.inData.map((_, i) => {
        const v = inputOf(node, i);
        if (v === undefined) throw kernelError(call, `subgraph ${graph.name} output ${i} has no value`);
        return v;
      });
    } else {
      if (deadline?.expired()) throw deadline.error(`in subgraph ${graph.name} of node ${owner.name}, before node ${node.name}`);
      const nodeInputs = node.inData.map((_, i) => inputOf(node, i));
      const first = nodeInputs.find(isHostTensor);
      const kernel: KernelV1 | undefined = environment.registry.find(type, node.opDesc.domain, first?.type);
      if (!kernel)
        throw TsgeError.of(
          'TSGE-E4004',
          { op: `${node.opDesc.domain}::${type}`, dtype: first?.type ?? '-' },
          { node: node.name, opType: type },
        );
      let outputs: (RuntimeValue | undefined)[];
      try {
        // the kernel sees the formal inputs; outer-scope captures (the parser's `_implicit_inputs`,
        // appended last) reach the node's own subgraphs through ownerInputs
        outputs = runKernelOnHost(kernel, nodeInputs.slice(0, formalInputCount(node)), {
          opType: type,
          nodeName: node.name,
          attrs: node.opDesc.attrs,
          outputCount: node.outData.length,
          opsetVersion: opsetOf(node),
          runSubgraph: (attr, subInputs) =>
            runSubgraph(environment, { owner: node, ownerInputs: nodeInputs, attrName: attr, inputs: subInputs }),
        });
      } catch (error) {
        throw kernelFailure({ node: node.name, opType: type, domain: node.opDesc.domain }, error);
      }
      outputs.forEach((v, i) => {
        values.set(key(node, i), v);
      });
    }
  }
  if (!results) throw kernelError(call, `subgraph ${graph.name} has no NetOutput`);
  return results;
}

function intAttr(node: Node, name: string): number | undefined {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'int' ? a.value : undefined;
}

/** Inputs a kernel sees: all of the node's, less the outer-scope captures the parser appended. */
export function formalInputCount(node: Node): number {
  const implicit = node.opDesc.attrs.get('_implicit_inputs');
  const count = implicit?.kind === 'int' ? implicit.value : 0;
  return Math.max(0, node.inData.length - count);
}
