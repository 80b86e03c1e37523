import type { Node } from '@tsge/metadef';
import { alignUp } from '../graph-utils.js';

/** One block of arena memory: a tensor, or several that share memory in place. */
export interface Buffer {
  readonly id: number;
  /** Aligned size in bytes. */
  readonly size: number;
  /** Node that first writes the buffer. */
  readonly def: Node;
  /** Nodes that read or write it after `def` (consumers, in-place writers). */
  readonly uses: Node[];
  /** Graph inputs and outputs: never shared with anything. */
  readonly pinned: boolean;
  /** Execution-order index of `def` and of the last use (for interval checks). */
  first: number;
  last: number;
}

export interface MemoryPlanInput {
  readonly buffers: readonly Buffer[];
  /** Whether two buffers may not share memory (lifetimes overlap in some execution). */
  readonly conflicts: (a: Buffer, b: Buffer) => boolean;
  readonly disableReuse?: boolean;
}

export interface MemoryPlan {
  readonly offsets: ReadonlyMap<Buffer, number>;
  readonly arenaBytes: number;
  readonly strategy: string;
}

/** Extra randomized (seeded, so deterministic) orders tried after the fixed strategies. */
const JITTER_ROUNDS = 6;

type Strategy = { readonly name: string; readonly order: (a: Buffer, b: Buffer) => number };

const STRATEGIES: readonly Strategy[] = [
  { name: 'greedy-by-size', order: (a, b) => b.size - a.size || a.first - b.first },
  {
    name: 'greedy-by-size-x-lifetime',
    order: (a, b) => b.size * (b.last - b.first + 1) - a.size * (a.last - a.first + 1) || a.first - b.first,
  },
  { name: 'greedy-by-lifetime', order: (a, b) => b.last - b.first - (a.last - a.first) || b.size - a.size },
  { name: 'first-fit-in-time', order: (a, b) => a.first - b.first || b.size - a.size },
];

/**
 * Assigns arena offsets: for each strategy's order, each buffer takes the best-fitting gap (the
 * smallest that holds it) among the already-placed buffers it conflicts with; the smallest arena wins.
 * Pinned buffers (graph inputs/outputs) go first, side by side, at the bottom.
 */
export function planMemory(input: MemoryPlanInput): MemoryPlan {
  const { buffers } = input;
  if (input.disableReuse) {
    const offsets = new Map<Buffer, number>();
    let end = 0;
    for (const b of [...buffers].sort((x, y) => x.first - y.first)) {
      offsets.set(b, end);
      end += b.size;
    }
    return { offsets, arenaBytes: end, strategy: 'no-reuse' };
  }
  const conflictLists = conflictTable(buffers, input.conflicts);
  // buffers that conflict with much go early; seeded jitter of the size order explores ties
  const pressure = new Map<Buffer, number>();
  for (const b of buffers)
    pressure.set(
      b,
      (conflictLists.get(b) as Buffer[]).reduce((n, o) => n + o.size, 0),
    );
  const strategies: Strategy[] = [
    ...STRATEGIES,
    { name: 'greedy-by-conflict', order: (a, b) => (pressure.get(b) as number) - (pressure.get(a) as number) || b.size - a.size },
  ];
  for (let seed = 1; seed <= JITTER_ROUNDS; seed++) {
    const noise = new Map<Buffer, number>();
    let s = seed * 0x9e3779b1;
    for (const b of buffers) {
      s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
      noise.set(b, 1 + (((s >>> 0) % 1000) / 1000 - 0.5) * 0.3);
    }
    strategies.push({
      name: `greedy-by-size-jitter-${seed}`,
      order: (a, b) => b.size * (noise.get(b) as number) - a.size * (noise.get(a) as number),
    });
  }
  let best: MemoryPlan | undefined;
  for (const strategy of strategies) {
    const plan = place(buffers, strategy, conflictLists);
    if (!best || plan.arenaBytes < best.arenaBytes) best = plan;
  }
  return best ?? { offsets: new Map(), arenaBytes: 0, strategy: 'empty' };
}

function conflictTable(buffers: readonly Buffer[], conflicts: MemoryPlanInput['conflicts']): Map<Buffer, Buffer[]> {
  const table = new Map<Buffer, Buffer[]>();
  for (const b of buffers) table.set(b, []);
  for (let i = 0; i < buffers.length; i++) {
    const a = buffers[i] as Buffer;
    for (let j = i + 1; j < buffers.length; j++) {
      const b = buffers[j] as Buffer;
      if (a.pinned || b.pinned || conflicts(a, b)) {
        (table.get(a) as Buffer[]).push(b);
        (table.get(b) as Buffer[]).push(a);
      }
    }
  }
  return table;
}

function place(buffers: readonly Buffer[], strategy: Strategy, conflictLists: Map<Buffer, Buffer[]>): MemoryPlan {
  const ordered = [...buffers].sort((a, b) => Number(b.pinned) - Number(a.pinned) || strategy.order(a, b));
  const offsets = new Map<Buffer, number>();
  let arenaBytes = 0;
  for (const buffer of ordered) {
    const busy: [number, number][] = [];
    for (const other of conflictLists.get(buffer) as Buffer[]) {
      const at = offsets.get(other);
      if (at !== undefined) busy.push([at, at + other.size]);
    }
    busy.sort((x, y) => x[0] - y[0]);
    let bestOffset = -1;
    let bestGap = Number.POSITIVE_INFINITY;
    let cursor = 0;
    for (const [start, end] of busy) {
      const gap = start - cursor;
      if (gap >= buffer.size && gap < bestGap) {
        bestGap = gap;
        bestOffset = cursor;
      }
      if (end > cursor) cursor = end;
    }
    const offset = bestOffset >= 0 ? bestOffset : cursor;
    offsets.set(buffer, offset);
    arenaBytes = Math.max(arenaBytes, offset + buffer.size);
  }
  return { offsets, arenaBytes, strategy: strategy.name };
}

/** Aligned size of a buffer holding `bytes` (at least one alignment unit, so offsets stay distinct). */
export function bufferSize(bytes: number): number {
  return Math.max(alignUp(bytes), 64);
}
