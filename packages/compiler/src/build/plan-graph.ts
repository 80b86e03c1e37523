import type { Graph, KernelV1, Node, OutDataAnchor, TensorDesc } from '@tsge/metadef';
import { CONST, DATA, DTYPE_BYTES, NET_OUTPUT, ONNX_DOMAIN, TsgeError, isStaticShape, topologicalSort } from '@tsge/metadef';
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
  // a Concat whose inputs are contiguous slices of its output gets them written there by their producers
  const slices = options.disableReuse || streams.streamCount !== 1 ? new Map<OutDataAnchor, Slice>() : concatSlices(order, graphOutputs);
  const concatBuffers = new Map<Node, Buffer>();
  const sliceOffset = new Map<OutDataAnchor, number>();
  for (const node of order) {
    if (node.type === CONST || node.type === NET_OUTPUT) continue;
    const dynamic = node.type !== DATA && isDynamicNode(node);
    node.outData.forEach((anchor, o) => {
      const bytes = descBytes(node.opDesc.outputDescs[o]);
      if (dynamic || bytes === undefined) return;
      const pinned = node.type === DATA || graphOutputs.has(anchor);
      const slice = slices.get(anchor);
      let buffer: Buffer;
      if (slice) {
        // the first producer in order opens the Concat's buffer; the Concat's own output is all of it
        const concat = concatBuffers.get(slice.concat) ?? newBuffer(node, slice.totalBytes, false);
        concatBuffers.set(slice.concat, concat);
        if (concat.def !== node) concat.uses.push(node);
        sliceOffset.set(anchor, slice.offset);
        buffer = concat;
      } else if (concatBuffers.has(node)) {
        buffer = concatBuffers.get(node) as Buffer;
        buffer.uses.push(node);
      } else {
        const shared =
          pinned || options.disableReuse ? undefined : inPlaceBuffer(node, o, bytes, options.kernelOf(node), bufferOf, streams);
        buffer = shared ?? newBuffer(node, bytes, pinned);
        if (shared) shared.uses.push(node);
      }
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
    return {
      region: 'arena',
      offset: (memory.offsets.get(buffer) as number) + (sliceOffset.get(anchor) ?? 0),
      bytes,
      dtype: desc.dtype,
      shape,
    };
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
        return b ? (memory.offsets.get(b) as number) + (sliceOffset.get(a) ?? 0) : -1;
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

/** Where a producer's output goes inside a Concat's output. */
interface Slice {
  readonly concat: Node;
  /** Byte offset in the Concat's output. */
  readonly offset: number;
  readonly totalBytes: number;
}

/** Slices start on this many bytes, so the producers' kernels see the alignment of a buffer of their own. */
const SLICE_ALIGNMENT = 64;

/**
 * Concats whose output can be assembled in place: static, not a graph output, concatenating along
 * an axis with only dims of 1 before it (so each input is one contiguous run of the output, at a
 * 64-byte-aligned offset), each input a distinct output of a computing node that only this Concat
 * reads (not a graph input, constant, graph output or another such Concat). Returns each input's
 * slice; the Concat then copies nothing (its kernel copies each slice onto itself, and planned
 * runs skip it).
 */
function concatSlices(order: readonly Node[], graphOutputs: ReadonlySet<OutDataAnchor>): Map<OutDataAnchor, Slice> {
  const slices = new Map<OutDataAnchor, Slice>();
  const placed = new Set<Node>();
  for (const node of order) {
    if (node.type !== 'Concat' || node.opDesc.domain !== ONNX_DOMAIN || node.outData.length !== 1) continue;
    const out = node.outData[0] as OutDataAnchor;
    const desc = node.opDesc.outputDescs[0];
    const totalBytes = descBytes(desc);
    if (!desc || totalBytes === undefined || totalBytes === 0 || graphOutputs.has(out) || isDynamicNode(node)) continue;
    const rank = desc.shape.length;
    const rawAxis = node.opDesc.attrs.get('axis');
    if (rawAxis?.kind !== 'int') continue;
    const axis = rawAxis.value < 0 ? rawAxis.value + rank : rawAxis.value;
    if (axis < 0 || axis >= rank || desc.shape.slice(0, axis).some((d) => d !== 1)) continue;
    const anchors = node.inData.map((a) => a.peer);
    const fits = anchors.every((peer, i) => {
      if (!peer || anchors.indexOf(peer) !== i || graphOutputs.has(peer) || peer.peers.length !== 1) return false;
      const producer = peer.node;
      const inDesc = producer.opDesc.outputDescs[peer.index];
      return (
        producer.type !== DATA &&
        producer.type !== CONST &&
        !placed.has(producer) &&
        !isDynamicNode(producer) &&
        inDesc?.dtype === desc.dtype &&
        descBytes(inDesc) !== undefined
      );
    });
    if (!fits) continue;
    let offset = 0;
    const mine: [OutDataAnchor, Slice][] = [];
    for (const peer of anchors as OutDataAnchor[]) {
      if (offset % SLICE_ALIGNMENT !== 0) break;
      mine.push([peer, { concat: node, offset, totalBytes }]);
      offset += descBytes(peer.node.opDesc.outputDescs[peer.index]) as number;
    }
    if (mine.length !== anchors.length || offset !== totalBytes) continue;
    for (const [peer, slice] of mine) slices.set(peer, slice);
    placed.add(node);
  }
  return slices;
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
