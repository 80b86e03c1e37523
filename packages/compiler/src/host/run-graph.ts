import type { Graph, HostTensor, KernelRegistry, Node, OutDataAnchor, RuntimeValue } from '@tsge/metadef';
import {
  ATTR_VALUE,
  CONST,
  DATA,
  NET_OUTPUT,
  TsgeError,
  constValueOf,
  createTensor,
  isHostTensor,
  isStaticShape,
  storageConstructor,
  topologicalSort,
} from '@tsge/metadef';
import { runKernelOnHost } from '@tsge/kernels-js';

/**
 * Interprets a graph on the host with reference kernels, node by node (Const nodes must still
 * hold their tensors). Used to check that passes and fusions preserve results, and by tests.
 * Subgraph Data nodes take the inputs in their index order.
 */
export function runGraphOnHost(
  graph: Graph,
  feeds: Readonly<Record<string, RuntimeValue>>,
  kernels: KernelRegistry,
  options: { weights?: Uint8Array } = {},
): Record<string, RuntimeValue> {
  const outputs = runGraph(graph, (name, index) => feeds[name] ?? feeds[index], kernels, 0, options.weights);
  const net = graph.outputNode();
  const result: Record<string, RuntimeValue> = {};
  outputs.forEach((v, i) => {
    if (v) result[net?.opDesc.inputNames[i] ?? `output_${i}`] = v;
  });
  return result;
}

function runGraph(
  graph: Graph,
  feed: (name: string, index: number) => RuntimeValue | undefined,
  kernels: KernelRegistry,
  depth: number,
  weights?: Uint8Array,
): (RuntimeValue | undefined)[] {
  if (depth > 32) throw TsgeError.of('TSGE-E4003', { reason: 'subgraphs nest too deeply' });
  const sorted = topologicalSort(graph);
  if (!sorted.ok) throw TsgeError.of('TSGE-E1003', { nodes: sorted.cycle.map((n) => n.name).join(', ') });
  const values = new Map<OutDataAnchor, RuntimeValue | undefined>();
  const inputsOf = graph.inputNodes();
  for (const node of sorted.order) {
    if (node.type === NET_OUTPUT) continue;
    if (node.type === DATA) {
      const v = feed(node.name, inputsOf.indexOf(node));
      if (!v) throw TsgeError.of('TSGE-E6001', { input: node.name });
      values.set(node.outData[0] as OutDataAnchor, v);
      continue;
    }
    if (node.type === CONST) {
      values.set(node.outData[0] as OutDataAnchor, constValueOf(node) ?? weightOf(node, weights));
      continue;
    }
    const inputs = node.inData.map((a) => (a.peer ? values.get(a.peer) : undefined));
    const first = inputs[0];
    const dtype = first && isHostTensor(first) ? (first as HostTensor).type : undefined;
    const kernel = kernels.find(node.type, node.opDesc.domain, dtype) ?? kernels.find(node.type, node.opDesc.domain, undefined);
    if (!kernel)
      throw TsgeError.of('TSGE-E4004', { op: `${node.opDesc.domain}::${node.type}`, dtype: dtype ?? 'unknown' }, { node: node.name });
    const results = runKernelOnHost(kernel, inputs, {
      opType: node.type,
      nodeName: node.name,
      attrs: node.opDesc.attrs,
      outputCount: node.outData.length,
      runSubgraph: (attrName, subInputs) => {
        const a = node.opDesc.attrs.get(attrName);
        const sub = a?.kind === 'graph' ? graph.subgraph(a.value) : undefined;
        if (!sub) throw TsgeError.of('TSGE-E4003', { reason: `${node.name}: no subgraph ${attrName}` });
        return runGraph(sub, (_name, index) => subInputs[index], kernels, depth + 1, weights).map((v) => v as RuntimeValue);
      },
    });
    for (const [i, v] of results.entries()) values.set(node.outData[i] as OutDataAnchor, v);
  }
  const net = graph.outputNode();
  return (net?.inData ?? []).map((a) => (a.peer ? values.get(a.peer) : undefined));
}

/** A Const whose data moved to the WEIGHTS partition (`value` is a tensor desc plus `_weight_offset`). */
function weightOf(node: Node, weights: Uint8Array | undefined): HostTensor | undefined {
  const value = node.opDesc.attrs.get(ATTR_VALUE);
  const offset = node.opDesc.attrs.get('_weight_offset');
  const bytes = node.opDesc.attrs.get('_weight_bytes');
  if (!weights || value?.kind !== 'tensor_desc' || offset?.kind !== 'int' || bytes?.kind !== 'int') return undefined;
  const desc = value.value;
  if (!isStaticShape(desc.shape)) return undefined;
  const Ctor = storageConstructor(desc.dtype);
  if (!Ctor) return undefined;
  const copy = weights.slice(offset.value, offset.value + bytes.value);
  return createTensor(desc.dtype, desc.shape, new Ctor(copy.buffer, 0, copy.length / Ctor.BYTES_PER_ELEMENT));
}
