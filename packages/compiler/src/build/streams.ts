import type { Node } from '@tsge/metadef';
import { descBytes } from '../graph-utils.js';

export interface SyncPoint {
  /** Event recorded after `producer` on its stream and waited on before `consumer`. */
  readonly event: number;
  readonly producer: Node;
  readonly consumer: Node;
}

export interface StreamPlan {
  readonly streamCount: number;
  readonly streamOf: ReadonlyMap<Node, number>;
  /** Nodes of each stream in execution order. */
  readonly streams: readonly (readonly Node[])[];
  /** Position of each node within its stream. */
  readonly position: ReadonlyMap<Node, number>;
  readonly syncs: readonly SyncPoint[];
  readonly eventCount: number;
  /**
   * For each node, per stream, the highest position known complete when the node starts
   * (-1: none). `happensBefore(a, b)` reads it.
   */
  readonly startClock: ReadonlyMap<Node, Int32Array>;
}

/**
 * Assigns computing nodes (given in execution order) to streams: a node continues the stream of
 * its first producer that no other consumer continued yet; a new branch goes to the least loaded
 * stream. Cross-stream edges get record/wait events; an event is skipped when vector clocks show
 * the consumer's stream already waited for the producer (transitively).
 */
export function planStreams(order: readonly Node[], limit: number): StreamPlan {
  const streamCount = Math.max(1, Math.min(limit, order.length || 1));
  const computing = new Set(order);
  const streamOf = new Map<Node, number>();
  const continued = new Set<Node>();
  const load = new Array<number>(streamCount).fill(0);
  for (const node of order) {
    let stream: number | undefined;
    if (streamCount > 1) {
      for (const a of node.inData) {
        const p = a.peer?.node;
        if (p && computing.has(p) && !continued.has(p)) {
          stream = streamOf.get(p);
          continued.add(p);
          break;
        }
      }
      if (stream === undefined) stream = load.indexOf(Math.min(...load));
    } else stream = 0;
    streamOf.set(node, stream);
    load[stream] = (load[stream] as number) + cost(node);
  }
  const streams: Node[][] = Array.from({ length: streamCount }, () => []);
  const position = new Map<Node, number>();
  for (const node of order) {
    const list = streams[streamOf.get(node) as number] as Node[];
    position.set(node, list.length);
    list.push(node);
  }
  // vector clocks
  const clocks = Array.from({ length: streamCount }, () => new Int32Array(streamCount).fill(-1));
  const endClock = new Map<Node, Int32Array>();
  const startClock = new Map<Node, Int32Array>();
  const recordOf = new Map<Node, number>();
  const syncs: SyncPoint[] = [];
  for (const node of order) {
    const s = streamOf.get(node) as number;
    const clock = clocks[s] as Int32Array;
    for (const p of node.inNodes()) {
      if (!computing.has(p)) continue;
      const t = streamOf.get(p) as number;
      if (t === s || (clock[t] as number) >= (position.get(p) as number)) continue;
      let event = recordOf.get(p);
      if (event === undefined) {
        event = recordOf.size;
        recordOf.set(p, event);
      }
      syncs.push({ event, producer: p, consumer: node });
      const pc = endClock.get(p) as Int32Array;
      for (let i = 0; i < streamCount; i++) if ((pc[i] as number) > (clock[i] as number)) clock[i] = pc[i] as number;
    }
    startClock.set(node, clock.slice());
    clock[s] = position.get(node) as number;
    endClock.set(node, clock.slice());
  }
  return { streamCount, streamOf, streams, position, syncs, eventCount: recordOf.size, startClock };
}

/** Whether `a` is complete before `b` starts in every execution the stream plan allows. */
export function happensBefore(plan: StreamPlan, a: Node, b: Node): boolean {
  const clock = plan.startClock.get(b);
  const stream = plan.streamOf.get(a);
  const pos = plan.position.get(a);
  if (!clock || stream === undefined || pos === undefined) return false;
  return (clock[stream] as number) >= pos;
}

function cost(node: Node): number {
  let bytes = 0;
  for (const d of node.opDesc.outputDescs) bytes += descBytes(d) ?? 0;
  return 1 + bytes / 4096;
}
