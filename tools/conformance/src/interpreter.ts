import {
  ATTR_INDEX,
  ATTR_PARENT_NODE_INDEX,
  ATTR_VALUE,
  CONST,
  DATA,
  type Graph,
  type KernelRegistry,
  NET_OUTPUT,
  type Node,
  type RuntimeValue,
  TsgeError,
  isHostTensor,
  isSequenceValue,
  topologicalSort,
} from '@tsge/metadef';
import { runKernelOnHost } from '@tsge/kernels-js';

/** Parser attributes that describe subgraph wiring (see packages/parsers/onnx/README.md). */
const ATTR_IMPLICIT_INPUTS = '_implicit_inputs';
const ATTR_IMPLICIT_INPUT = '_implicit_input';
const ATTR_OPSET = '_opset';

export interface InterpreterOptions {
  readonly kernels: KernelRegistry;
  /** Kernel implementation names in order of preference (default: reference). */
  readonly preference?: readonly string[];
}

function intAttr(node: Node, name: string): number | undefined {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'int' ? a.value : undefined;
}

/**
 * Runs a graph node by node in topological order on the host, with the reference kernels. Infers
 * nothing: kernels compute output shapes. `inputs` are indexed by the Data nodes' `index`.
 */
export function interpret(
  graph: Graph,
  inputs: readonly (RuntimeValue | undefined)[],
  options: InterpreterOptions,
): (RuntimeValue | undefined)[] {
  const sorted = topologicalSort(graph);
  if (!sorted.ok) throw new Error(`graph ${graph.name} has a cycle through ${sorted.cycle.map(String).join(', ')}`);
  const values = new Map<Node, (RuntimeValue | undefined)[]>();
  const read = (node: Node, index: number): RuntimeValue | undefined => {
    const anchor = node.inData[index]?.peer;
    return anchor ? values.get(anchor.node)?.[anchor.index] : undefined;
  };
  let result: (RuntimeValue | undefined)[] = [];
  for (const node of sorted.order) {
    const desc = node.opDesc;
    if (desc.type === DATA) {
      const index = intAttr(node, ATTR_INDEX) ?? 0;
      values.set(node, [inputs[index]]);
      continue;
    }
    if (desc.type === CONST) {
      const a = desc.attrs.get(ATTR_VALUE);
      if (a?.kind !== 'tensor') throw new Error(`Const ${desc.name} holds no tensor`);
      values.set(node, [a.value]);
      continue;
    }
    const all = node.inData.map((_, i) => read(node, i));
    if (desc.type === NET_OUTPUT) {
      result = all;
      continue;
    }
    values.set(node, runNode(graph, node, all, options));
  }
  return result;
}

function runNode(
  graph: Graph,
  node: Node,
  all: readonly (RuntimeValue | undefined)[],
  options: InterpreterOptions,
): (RuntimeValue | undefined)[] {
  const desc = node.opDesc;
  const implicit = intAttr(node, ATTR_IMPLICIT_INPUTS) ?? 0;
  const kernelInputs = all.slice(0, all.length - implicit);
  // drop trailing omitted optional inputs so kernels see ONNX's input count
  while (kernelInputs.length > 0 && kernelInputs[kernelInputs.length - 1] === undefined && !node.inData[kernelInputs.length - 1]?.peer) {
    kernelInputs.pop();
  }
  const first = kernelInputs[0];
  const dtype = isHostTensor(first) ? first.type : isSequenceValue(first) ? first.elementType : undefined;
  const kernel = options.kernels.find(desc.type, desc.domain, dtype, options.preference ?? ['reference']);
  if (!kernel) throw TsgeError.of('TSGE-E4004', { op: `${desc.domain}::${desc.type}`, dtype: dtype ?? 'none' }, { node: desc.name });
  const runSubgraph = (attrName: string, formal: readonly (RuntimeValue | undefined)[]): RuntimeValue[] => {
    const a = desc.attrs.get(attrName);
    const sub = a?.kind === 'graph' ? graph.subgraph(a.value) : undefined;
    if (!sub) throw new Error(`node ${desc.name} has no subgraph attribute ${attrName}`);
    const subInputs: (RuntimeValue | undefined)[] = [];
    for (const data of sub.nodesOfType(DATA)) {
      const index = intAttr(data, ATTR_INDEX) ?? 0;
      const isImplicit = data.opDesc.attrs.get(ATTR_IMPLICIT_INPUT)?.kind === 'bool';
      subInputs[index] = isImplicit ? all[intAttr(data, ATTR_PARENT_NODE_INDEX) ?? -1] : formal[index];
    }
    return interpret(sub, subInputs, options) as RuntimeValue[];
  };
  return runKernelOnHost(kernel, kernelInputs, {
    opType: desc.type,
    nodeName: desc.name,
    attrs: desc.attrs,
    outputCount: node.outData.length,
    opsetVersion: intAttr(node, ATTR_OPSET) ?? 0,
    runSubgraph,
  });
}
