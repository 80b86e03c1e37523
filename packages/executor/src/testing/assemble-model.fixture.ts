// Test helper: turns a small static graph into an OmModel the way the compiler would (weights,
// a no-reuse arena plan, streams with events on cross-stream edges), so executor tests do not
// depend on the compiler.
import type { Graph, Node } from '@tsge/metadef';
import { CONST, DATA, DTYPE_BYTES, NET_OUTPUT, attr, isStaticShape, shapeSize, topologicalSort } from '@tsge/metadef';
import type { ExecutionPlan, OmModel, Task, TensorRef } from '@tsge/om';

export interface AssembleOptions {
  /** Stream of each computing node (default 0). */
  readonly streamOf?: (node: Node) => number;
  /** Nodes whose outputs get region 'dynamic'. */
  readonly dynamicNodes?: readonly string[];
  /** Extra plans: gears as input name → shape, each planned from `graphForGear`. */
  readonly gears?: readonly { gear: Record<string, number[]>; graph: Graph }[];
  /** The .om target (default 'wasm-simd': the cpu device). */
  readonly target?: string;
  /** Implementation name of a node's task (default 'reference'). */
  readonly kernelOf?: (node: Node) => string | undefined;
  /** KERNELS partition. */
  readonly kernels?: OmModel['kernels'];
}

const align = (n: number): number => Math.ceil(n / 64) * 64;

export function assembleModel(graph: Graph, options: AssembleOptions = {}): OmModel {
  const weightChunks: Uint8Array[] = [];
  let weightsBytes = 0;
  const weightRefs = new Map<string, TensorRef>();
  for (const node of graph.nodesOfType(CONST)) {
    const value = node.opDesc.attrs.get('value');
    if (value?.kind !== 'tensor') continue;
    const t = value.value;
    const data = t.data as Float32Array;
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
    const offset = weightsBytes;
    weightChunks.push(bytes);
    weightsBytes = align(offset + bytes.byteLength);
    node.opDesc.attrs.set(
      'value',
      attr.tensorDesc({ dtype: t.type, shape: [...t.dims], format: 'ND', originShape: [...t.dims], originFormat: 'ND' }),
    );
    node.opDesc.attrs.set('_weight_offset', attr.int(offset));
    node.opDesc.attrs.set('_weight_bytes', attr.int(bytes.byteLength));
    weightRefs.set(`${node.name}:0`, { region: 'weights', offset, bytes: bytes.byteLength, dtype: t.type, shape: [...t.dims] });
  }
  const weights = new Uint8Array(Math.max(64, weightsBytes));
  let at = 0;
  for (const chunk of weightChunks) {
    weights.set(chunk, at);
    at = align(at + chunk.byteLength);
  }
  const plans = options.gears?.length
    ? options.gears.map((g) => planFor(g.graph, weightRefs, options, g.gear))
    : [planFor(graph, weightRefs, options, null)];
  const inputs = graph
    .inputNodes()
    .map((n) => ({ name: n.name, dtype: n.opDesc.outputDescs[0]?.dtype ?? 'float32', shape: [...(n.opDesc.outputDescs[0]?.shape ?? [])] }));
  const net = graph.outputNode() as Node;
  const outputs = net.inData.map((a, i) => ({
    name: net.opDesc.inputNames[i] ?? `output${i}`,
    dtype: a.peer?.node.opDesc.outputDescs[a.peer.index]?.dtype ?? 'float32',
    shape: [...(a.peer?.node.opDesc.outputDescs[a.peer.index]?.shape ?? [])],
  }));
  const dynamic = plans.some((p) =>
    p.streams.some((s) => s.tasks.some((t) => t.kind === 'kernel' && t.outputs.some((o) => o.region === 'dynamic'))),
  );
  return {
    header: {
      formatVersion: 1,
      headerSize: 256,
      checksum: 0,
      bodyLength: 0,
      modelName: graph.name,
      target: options.target ?? 'wasm-simd',
      flags: { dynamic, gears: (options.gears?.length ?? 0) > 0 },
      partitionCount: 5,
    },
    graph,
    weights,
    taskInfo: { version: 1, dynamic, plans },
    kernels: options.kernels ?? [],
    ioInfo: { version: 1, inputs, outputs },
  };
}

function planFor(
  graph: Graph,
  weightRefs: Map<string, TensorRef>,
  options: AssembleOptions,
  gear: Record<string, number[]> | null,
): ExecutionPlan {
  const sorted = topologicalSort(graph);
  if (!sorted.ok) throw new Error('cycle');
  const refs = new Map<string, TensorRef>(weightRefs);
  let arena = 0;
  const dynamicNodes = new Set(options.dynamicNodes ?? []);
  for (const node of sorted.order) {
    if (node.type === CONST || node.type === NET_OUTPUT) continue;
    node.opDesc.outputDescs.forEach((desc, i) => {
      const count = shapeSize(desc.shape);
      if (dynamicNodes.has(node.name) || !isStaticShape(desc.shape) || count === undefined) {
        refs.set(`${node.name}:${i}`, { region: 'dynamic', offset: 0, bytes: 0, dtype: desc.dtype, shape: [...desc.shape] });
        return;
      }
      const bytes = count * DTYPE_BYTES[desc.dtype];
      refs.set(`${node.name}:${i}`, { region: 'arena', offset: arena, bytes, dtype: desc.dtype, shape: [...desc.shape] });
      arena = align(arena + Math.max(bytes, 1));
    });
  }
  const refOf = (node: Node, index: number): TensorRef => {
    const peer = node.inData[index]?.peer;
    if (!peer) return { region: 'none', offset: 0, bytes: 0, dtype: 'float32', shape: [] };
    return refs.get(`${peer.node.name}:${peer.index}`) as TensorRef;
  };
  const streamOf = (node: Node): number => options.streamOf?.(node) ?? 0;
  const streams = new Map<number, Task[]>();
  const tasksOf = (id: number): Task[] => {
    const list = streams.get(id) ?? [];
    streams.set(id, list);
    return list;
  };
  let eventCount = 0;
  const recorded = new Map<string, number>();
  for (const node of sorted.order) {
    if (node.type === CONST || node.type === DATA || node.type === NET_OUTPUT) continue;
    const stream = streamOf(node);
    for (const a of node.inData) {
      const producer = a.peer?.node;
      if (!producer || producer.type === CONST || producer.type === DATA) continue;
      const from = streamOf(producer);
      if (from === stream) continue;
      const key = `${producer.name}->${stream}`;
      if (!recorded.has(key)) {
        const event = eventCount++;
        recorded.set(key, event);
        const list = tasksOf(from);
        const at = list.findIndex((t) => t.kind === 'kernel' && t.node === producer.name);
        list.splice(at + 1, 0, { kind: 'record', event });
        tasksOf(stream).push({ kind: 'wait', event });
      }
    }
    tasksOf(stream).push({
      kind: 'kernel',
      node: node.name,
      opType: node.type,
      domain: node.opDesc.domain,
      kernel: options.kernelOf?.(node) ?? 'reference',
      inputs: node.inData.map((_, i) => refOf(node, i)),
      outputs: node.outData.map((_, i) => refs.get(`${node.name}:${i}`) as TensorRef),
    });
  }
  const net = graph.outputNode() as Node;
  return {
    gear,
    arenaBytes: Math.max(arena, 64),
    eventCount,
    memory: { arenaBytes: arena, noReuseBytes: arena, lowerBoundBytes: arena, weightsBytes: 0 },
    streams: [...streams.entries()].sort((a, b) => a[0] - b[0]).map(([id, tasks]) => ({ id, tasks })),
    inputs: graph.inputNodes().map((n) => refs.get(`${n.name}:0`) as TensorRef),
    outputs: net.inData.map((_, i) => refOf(net, i)),
  };
}
