import type { Graph, Node } from '@tsge/metadef';

/** A value's key in the host runner: its producer's name and output index. */
export const valueKey = (node: Node, index: number): string => `${node.name}\u0000${index}`;

const readerCounts = new WeakMap<Graph, ReadonlyMap<string, number>>();

/** How many node inputs read each value of the graph (the graph's output node counts: its values are never freed). */
function readersOf(graph: Graph): ReadonlyMap<string, number> {
  let counts = readerCounts.get(graph);
  if (!counts) {
    const map = new Map<string, number>();
    for (const node of graph.nodes)
      for (const anchor of node.inData) {
        const peer = anchor.peer;
        if (peer) map.set(valueKey(peer.node, peer.index), (map.get(valueKey(peer.node, peer.index)) ?? 0) + 1);
      }
    counts = map;
    readerCounts.set(graph, counts);
  }
  return counts;
}

/**
 * Run-time-shaped tensors of one run, freed at their last use: once every node input that reads a
 * value has been run (an output nothing reads, once its producer has run), its blocks go back to
 * the scratch allocator, so later tensors reuse them and a run's working set stays about what a
 * static plan's arena is, not the sum of all its tensors. The rest is freed with `releaseAll`.
 */
export function createLastUse(graph: Graph, free: (offset: number) => void) {
  const remaining = new Map(readersOf(graph));
  const blocks = new Map<string, number[]>();
  const release = (key: string): void => {
    const owned = blocks.get(key);
    if (!owned) return;
    blocks.delete(key);
    for (const offset of owned) free(offset);
  };
  return {
    /** A block allocated for value `key` (`valueKey`). */
    own(key: string, offset: number): void {
      const owned = blocks.get(key);
      if (owned) owned.push(offset);
      else blocks.set(key, [offset]);
    },
    /** `node` has run: the values it read lose a reader, its outputs nothing reads are done. */
    ran(node: Node): void {
      for (const anchor of node.inData) {
        const peer = anchor.peer;
        if (!peer) continue;
        const key = valueKey(peer.node, peer.index);
        const left = (remaining.get(key) ?? 0) - 1;
        remaining.set(key, left);
        if (left <= 0) release(key);
      }
      node.outData.forEach((_, i) => {
        const key = valueKey(node, i);
        if ((remaining.get(key) ?? 0) <= 0) release(key);
      });
    },
    releaseAll(): void {
      for (const key of [...blocks.keys()]) release(key);
    },
  };
}
