import type { Graph, HostTensor, KernelRegistry, Node, RuntimeValue } from '@tsge/metadef';
import {
  ATTR_INDEX,
  ATTR_PARENT_NODE_INDEX,
  ATTR_VALUE,
  CONST,
  DATA,
  NET_OUTPUT,
  TsgeError,
  createTensor,
  isHostTensor,
  isSequenceValue,
  isStaticShape,
  opsetOf,
  storageConstructor,
  topologicalSort,
} from '@tsge/metadef';
import { runKernelOnHost } from './run-on-host.js';

/** Parser attributes that describe subgraph wiring (see packages/parsers/onnx/README.md). */
const ATTR_IMPLICIT_INPUTS = '_implicit_inputs';
const ATTR_IMPLICIT_INPUT = '_implicit_input';
/** Subgraphs nest at most this deep (a model cannot recurse the interpreter without bound). */
const MAX_DEPTH = 32;

export interface InterpretOptions {
  readonly kernels: KernelRegistry;
  /** Kernel implementation names in order of preference (default: reference). */
  readonly preference?: readonly string[];
  /**
   * The tensor of a Const node. Default: its `value` attribute, else its bytes in `weights` when the
   * compiler moved them there (`_weight_offset`, `_weight_bytes`).
   */
  readonly constValue?: (node: Node) => HostTensor | undefined;
  /** The WEIGHTS partition for the default `constValue`. */
  readonly weights?: Uint8Array;
  /** Turns a kernel's exception into the caller's error (default: rethrown as is). */
  readonly kernelError?: (node: Node, error: unknown) => unknown;
  /** Called before each node runs; throwing stops the run (the executor's run deadline). */
  readonly beforeNode?: (node: Node, graph: Graph) => void;
}

/** A subgraph's outer scope: the values of all inputs of the node that runs it. */
interface Scope {
  readonly ownerInputs: readonly (RuntimeValue | undefined)[];
  /** How many formal inputs the kernel passed (Data nodes indexed past them are captures). */
  readonly formalCount: number;
  readonly depth: number;
}

/**
 * Topological orders, cached per options object (a Loop body sorts once per run, not per
 * iteration): a graph must not change while an options object that ran it is reused.
 */
const orderCaches = new WeakMap<InterpretOptions, WeakMap<Graph, readonly Node[]>>();

function intAttr(node: Node, name: string): number | undefined {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'int' ? a.value : undefined;
}

function orderOf(graph: Graph, options: InterpretOptions): readonly Node[] {
  let orders = orderCaches.get(options);
  if (!orders) {
    orders = new WeakMap();
    orderCaches.set(options, orders);
  }
  let order = orders.get(graph);
  if (!order) {
    const sorted = topologicalSort(graph);
    if (!sorted.ok) throw TsgeError.of('TSGE-E1003', { nodes: sorted.cycle.map((n) => n.name).join(', ') }, { graph: graph.name });
    order = sorted.order;
    orders.set(graph, order);
  }
  return order;
}

/**
 * The one host graph interpreter: runs a graph node by node in topological order on host values,
 * each node by the kernel the registry prefers, subgraphs (If/Loop/Scan bodies, FlexAttention's
 * score functions) recursively. It infers nothing: kernels state their outputs' dims. Used by the
 * conformance runner's interpreter engine, the executor for subgraph bodies, and tests that check
 * passes preserve results. `inputs` are the Data nodes' values by their `index` attribute, or by
 * name. Returns the NetOutput's inputs.
 */
export function interpretGraph(
  graph: Graph,
  inputs: readonly (RuntimeValue | undefined)[] | Readonly<Record<string, RuntimeValue>>,
  options: InterpretOptions,
): (RuntimeValue | undefined)[] {
  const byName = !Array.isArray(inputs);
  const dataNodes = graph.inputNodes();
  const feed = (node: Node): RuntimeValue | undefined => {
    const index = intAttr(node, ATTR_INDEX) ?? dataNodes.indexOf(node);
    if (!byName) return (inputs as readonly (RuntimeValue | undefined)[])[index];
    const value = (inputs as Readonly<Record<string, RuntimeValue>>)[node.name];
    if (value === undefined) throw TsgeError.of('TSGE-E6001', { input: node.name });
    return value;
  };
  return run(graph, feed, options, { ownerInputs: [], formalCount: 0, depth: 0 });
}

function run(
  graph: Graph,
  feed: (data: Node) => RuntimeValue | undefined,
  options: InterpretOptions,
  scope: Scope,
): (RuntimeValue | undefined)[] {
  const values = new Map<Node, (RuntimeValue | undefined)[]>();
  const read = (node: Node, index: number): RuntimeValue | undefined => {
    const anchor = node.inData[index]?.peer;
    return anchor ? values.get(anchor.node)?.[anchor.index] : undefined;
  };
  const constValue = options.constValue ?? ((node: Node) => defaultConstValue(node, options.weights));
  let result: (RuntimeValue | undefined)[] = [];
  for (const node of orderOf(graph, options)) {
    const type = node.type;
    if (type === DATA) {
      // outer-scope captures (the parser's implicit inputs) come from the owner's inputs
      const parentIndex = intAttr(node, ATTR_PARENT_NODE_INDEX);
      const index = intAttr(node, ATTR_INDEX) ?? 0;
      const implicit =
        scope.depth > 0 && (node.opDesc.attrs.get(ATTR_IMPLICIT_INPUT)?.value === true || index < 0 || index >= scope.formalCount);
      values.set(node, [implicit ? (parentIndex !== undefined ? scope.ownerInputs[parentIndex] : undefined) : feed(node)]);
      continue;
    }
    if (type === CONST) {
      const value = constValue(node);
      if (!value) throw TsgeError.of('TSGE-E4003', { reason: `Const ${node.name} holds no tensor` }, { node: node.name });
      values.set(node, [value]);
      continue;
    }
    const all = node.inData.map((_, i) => read(node, i));
    if (type === NET_OUTPUT) {
      result = all;
      continue;
    }
    options.beforeNode?.(node, graph);
    values.set(node, runNode(node, all, options, scope.depth));
  }
  return result;
}

/**
 * Runs one node on host values with the kernel the registry prefers: `inputs` are all
 * the node's inputs (outer-scope captures included, the kernel sees the formal ones), and its
 * subgraphs run through `interpretGraph`. Constant folding runs nodes this way.
 */
export function runNodeOnHost(
  node: Node,
  inputs: readonly (RuntimeValue | undefined)[],
  options: InterpretOptions,
): (RuntimeValue | undefined)[] {
  return runNode(node, inputs, options, 0);
}

function runNode(
  node: Node,
  all: readonly (RuntimeValue | undefined)[],
  options: InterpretOptions,
  depth: number,
): (RuntimeValue | undefined)[] {
  const desc = node.opDesc;
  const kernelInputs = all.slice(0, formalInputCount(node));
  // drop trailing omitted optional inputs so kernels see the op's input count
  while (kernelInputs.length > 0 && kernelInputs[kernelInputs.length - 1] === undefined && !node.inData[kernelInputs.length - 1]?.peer) {
    kernelInputs.pop();
  }
  const first = kernelInputs[0];
  const dtype = isHostTensor(first) ? first.type : isSequenceValue(first) ? first.elementType : kernelInputs.find(isHostTensor)?.type;
  const preference = options.preference ?? ['reference'];
  const kernel =
    options.kernels.find(desc.type, desc.domain, dtype, preference) ?? options.kernels.find(desc.type, desc.domain, undefined, preference);
  if (!kernel)
    throw TsgeError.of(
      'TSGE-E4004',
      { op: `${desc.domain}::${desc.type}`, dtype: dtype ?? 'none' },
      { node: desc.name, opType: desc.type },
    );
  const runSubgraph = (attrName: string, formal: readonly (RuntimeValue | undefined)[]): RuntimeValue[] =>
    interpretSubgraph({ owner: node, ownerInputs: all, attrName, inputs: formal }, options, depth + 1);
  try {
    return runKernelOnHost(kernel, kernelInputs, {
      opType: desc.type,
      nodeName: desc.name,
      attrs: desc.attrs,
      outputCount: node.outData.length,
      opsetVersion: opsetOf(node),
      runSubgraph,
    });
  } catch (error) {
    throw options.kernelError ? options.kernelError(node, error) : error;
  }
}

/** A subgraph run that a node's kernel asks for (`ctx.runSubgraph`). */
export interface SubgraphRequest {
  /** The node whose kernel runs the subgraph, and the values of all its inputs (captures included). */
  readonly owner: Node;
  readonly ownerInputs: readonly (RuntimeValue | undefined)[];
  readonly attrName: string;
  /** The subgraph's formal inputs, from the kernel. */
  readonly inputs: readonly (RuntimeValue | undefined)[];
}

/**
 * Interprets the subgraph a node's attribute names on `request.inputs` (outer-scope captures from
 * the owner's inputs) and returns its outputs. Hosts whose own contexts run a node's kernel (the
 * executor's host mode) answer `ctx.runSubgraph` with this.
 */
export function interpretSubgraph(request: SubgraphRequest, options: InterpretOptions, depth = 1): RuntimeValue[] {
  const { owner, ownerInputs, attrName, inputs } = request;
  const a = owner.opDesc.attrs.get(attrName);
  const graph = owner.graph;
  const sub = a?.kind === 'graph' && graph ? graph.subgraph(a.value) : undefined;
  if (!sub) throw TsgeError.of('TSGE-E4003', { reason: `node ${owner.name} has no subgraph attribute ${attrName}` }, { node: owner.name });
  if (depth > MAX_DEPTH) throw TsgeError.of('TSGE-E4003', { reason: `subgraphs nest deeper than ${MAX_DEPTH}` }, { node: owner.name });
  const feed = (data: Node): RuntimeValue | undefined => inputs[intAttr(data, ATTR_INDEX) ?? 0];
  const outputs = run(sub, feed, options, { ownerInputs, formalCount: inputs.length, depth });
  return outputs.map((v, i) => {
    if (v === undefined)
      throw TsgeError.of('TSGE-E4003', { reason: `subgraph ${sub.name} output ${i} has no value` }, { node: owner.name });
    return v;
  });
}

/** Inputs a kernel sees: all of the node's, less the outer-scope captures the parser appended. */
export function formalInputCount(node: Node): number {
  return Math.max(0, node.inData.length - (intAttr(node, ATTR_IMPLICIT_INPUTS) ?? 0));
}

/** A Const's `value` tensor, or a copy of its bytes in the WEIGHTS partition (`_weight_offset`). */
function defaultConstValue(node: Node, weights: Uint8Array | undefined): HostTensor | undefined {
  const value = node.opDesc.attrs.get(ATTR_VALUE);
  if (value?.kind === 'tensor') return value.value;
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
