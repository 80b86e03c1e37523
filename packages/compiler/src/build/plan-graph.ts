import type { Graph, KernelV1, Node, OutDataAnchor, TensorDesc } from '@tsge/metadef';
import { CONST, DATA, DTYPE_BYTES, NET_OUTPUT, TsgeError, isStaticShape, topologicalSort } from '@tsge/metadef';
import type { ExecutionPlan, StreamInfo, Task, TensorRef } from '@tsge/om';
import { descBytes } from '../graph-utils.js';
import { memoryBounds } from './memory-bounds.js';
import { type Buffer, bufferSize, planMemory } from './memory-plan.js';
import { type StreamPlan, happensBefore, planStreams } from './streams.js';
import { taskAttrs } from './task-attrs.js';

export interface WeightSlot {
  readonly offset: number;
  readonly bytes: number;
}

export interface PlanGraphOptions {
  readonly streamLimit: number;
  readonly disableReuse: boolean;
  readonly weights: ReadonlyMap<string, WeightSlot>;
  readonly weightsBytes: number;
  /** Kernel bound to each computing node. */
  readonly kernelOf: (node: Node) => KernelV1 | undefined;
  readonly gear: Record<string, number[]> | null;
  /** Write stream ids and output offsets into the node descs. */
  readonly annotate: boolean;
}

export interface GraphPlan {
  readonly plan: ExecutionPlan;
  readonly buffers: readonly Buffer[];
  readonly offsets: ReadonlyMap<Buffer, number>;
  readonly streams: StreamPlan;
  readonly conflicts: (a: Buffer, b: Buffer) => boolean;
  readonly strategy: string;
}

const CONTROL_FLOW = new Set(['If', 'Loop', 'Scan', 'SequenceMap']);

/** Whether a node's outputs must be allocated at run time. */
export function isDynamicNode(node: Node): boolean {
  if (node.opDesc.subgraphNames.length > 0 || CONTROL_FLOW.has(node.type)) return true;
  return node.opDesc.outputDescs.some((d) => descBytes(d) === undefined);
}

/** Streams, lifetimes, memory offsets and tasks of one graph whose shapes are final. */
export function planGraph(graph: Graph, options: PlanGraphOptions): GraphPlan {
  const sorted = topologicalSort(graph, 'dfs');
  if (!sorted.ok) throw TsgeError.of('TSGE-E1003', { nodes: sorted.cycle.map((n) => n.name).join(', ') });
  const order = sorted.order;
  const stepOf = new Map<Node, number>();
  for (const [i, n] of order.entries()) stepOf.set(n, i);
  const computing = order.filter((n) => n.type !== DATA && n.type !== CONST && n.type !== NET_OUTPUT);
  const streams = planStreams(computing, options.streamLimit);
  const net = graph.outputNode();
  const graphOutputs = new Set<OutDataAnchor>();
  for (const a of net?.inData ?? []) if (a.peer) graphOutputs.add(a.peer);

  // tensors → buffers (with in-place sharing where the kernel allows it)
  const bufferOf = new Map<OutDataAnchor, Buffer>();
  const buffers: Buffer[] = [];
  const conflicts = (a: Buffer, b: Buffer): boolean => {
    if (a.pinned || b.pinned) return true;
    if (streams.streamCount === 1) return !(a.last < b.first || b.last < a.first);
    return !(allBefore(streams, a, b.def) || allBefore(streams, b, a.def));
  };
  const newBuffer = (def: Node, bytes: number, pinned: boolean): Buffer => {
    const step = stepOf.get(def) as number;
    const b: Buffer = { id: buffers.length, size: bufferSize(bytes), def, uses: [], pinned, first: step, last: step };
    buffers.push(b);
    return b;
  };
  for (const node of order) {
    if (node.type === CONST || node.type === NET_OUTPUT) continue;
    const dynamic = node.type !== DATA && isDynamicNode(node);
    node.outData.forEach((anchor, o) => {
      const bytes = descBytes(node.opDesc.outputDescs[o]);
      if (dynamic || bytes === undefined) return;
      const pinned = node.type === DATA || graphOutputs.has(anchor);
      const shared = pinned || options.disableReuse ? undefined : inPlaceBuffer(node, o, bytes, options.kernelOf(node), bufferOf, streams);
      const buffer = shared ?? newBuffer(node, bytes, pinned);
      if (shared) shared.uses.push(node);
      bufferOf.set(anchor, buffer);
      // consumers extend the lifetime
      for (const peer of anchor.peers) if (peer.node.type !== NET_OUTPUT) buffer.uses.push(peer.node);
    });
  }
  for (const b of buffers) for (const u of b.uses) b.last = Math.max(b.last, stepOf.get(u) as number);

  const memory = planMemory({ buffers, conflicts, disableReuse: options.disableReuse });
  const bounds = memoryBounds(buffers, order.length);

  const refOf = (anchor: OutDataAnchor | undefined): TensorRef => {
    if (!anchor) return { region: 'none', offset: 0, bytes: 0, dtype: 'float32', shape: [] };
    const desc = anchor.node.opDesc.outputDescs[anchor.index] as TensorDesc;
    const shape = [...desc.shape];
    if (anchor.node.type === CONST) {
      const slot = options.weights.get(anchor.node.name);
      return { region: 'weights', offset: slot?.offset ?? 0, bytes: slot?.bytes ?? 0, dtype: desc.dtype, shape };
    }
    const buffer = bufferOf.get(anchor);
    const bytes = descBytes(desc);
    if (!buffer || bytes === undefined || !isStaticShape(desc.shape))
      return { region: 'dynamic', offset: 0, bytes: 0, dtype: desc.dtype, shape };
    return { region: 'arena', offset: memory.offsets.get(buffer) as number, bytes, dtype: desc.dtype, shape };
  };

  const recordAfter = new Map<Node, number>();
  const waitsBefore = new Map<Node, number[]>();
  for (const s of streams.syncs) {
    recordAfter.set(s.producer, s.event);
    const list = waitsBefore.get(s.consumer) ?? [];
    if (!list.includes(s.event)) list.push(s.event);
    waitsBefore.set(s.consumer, list);
  }
  const streamInfos: StreamInfo[] = streams.streams.map((nodes, id) => {
    const tasks: Task[] = [];
    for (const node of nodes) {
      for (const event of waitsBefore.get(node) ?? []) tasks.push({ kind: 'wait', event });
      const kernel = options.kernelOf(node);
      tasks.push({
        kind: 'kernel',
        node: node.name,
        opType: node.type,
        domain: node.opDesc.domain,
        kernel: kernel?.name ?? 'reference',
        inputs: node.inData.map((a) => refOf(a.peer)),
        outputs: node.outData.map((a) => refOf(a)),
        ...taskAttrs(node),
      });
      const event = recordAfter.get(node);
      if (event !== undefined) tasks.push({ kind: 'record', event });
    }
    return { id, tasks };
  });

  if (options.annotate) {
    for (const node of order) {
      const stream = streams.streamOf.get(node);
      if (stream !== undefined) node.opDesc.streamId = stream;
      if (node.type === CONST || node.type === NET_OUTPUT) continue;
      node.opDesc.outputOffsets = node.outData.map((a) => {
        const b = bufferOf.get(a);
        return b ? (memory.offsets.get(b) as number) : -1;
      });
    }
  }

  const inputs = graph.inputNodes().map((d) => refOf(d.outData[0]));
  const outputs = (net?.inData ?? []).map((a) => refOf(a.peer));
  const plan: ExecutionPlan = {
    gear: options.gear,
    arenaBytes: memory.arenaBytes,
    streams: streamInfos,
    eventCount: streams.eventCount,
    memory: {
      arenaBytes: memory.arenaBytes,
      noReuseBytes: bounds.noReuseBytes,
      lowerBoundBytes: bounds.lowerBoundBytes,
      weightsBytes: options.weightsBytes,
    },
    inputs,
    outputs,
  };
  return { plan, buffers, offsets: memory.offsets, streams, conflicts, strategy: memory.strategy };
}

/** Every access to `buffer` completes before `node` starts (a use by `node` itself overlaps). */
function allBefore(streams: StreamPlan, buffer: Buffer, node: Node): boolean {
  if (!happensBefore(streams, buffer.def, node)) return false;
  for (const u of buffer.uses) if (!happensBefore(streams, u, node)) return false;
  return true;
}

/** The input buffer output `o` of `node` may overwrite, when the kernel declares it in place. */
function inPlaceBuffer(
  node: Node,
  o: number,
  bytes: number,
  kernel: KernelV1 | undefined,
  bufferOf: Map<OutDataAnchor, Buffer>,
  streams: StreamPlan,
): Buffer | undefined {
  for (const [i, out] of kernel?.inPlace ?? []) {
    if (out !== o) continue;
    const source = node.inData[i]?.peer;
    const buffer = source ? bufferOf.get(source) : undefined;
    if (!source || !buffer || buffer.pinned || buffer.size !== bufferSize(bytes)) continue;
    const desc = source.node.opDesc.outputDescs[source.index];
    if (!desc || (descBytes(desc) ?? -1) !== bytes || DTYPE_BYTES[desc.dtype] === 0) continue;
    // every other reader of the buffer must be done before this node writes it
    if (
      buffer.uses.every((u) => u === node || happensBefore(streams, u, node)) &&
      (buffer.def === node || happensBefore(streams, buffer.def, node))
    )
      return buffer;
  }
  return undefined;
}
