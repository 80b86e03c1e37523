import type { Graph } from './graph.js';
import type { Node } from './node.js';

export type TopoOrder = 'bfs' | 'dfs';

export type TopoResult = { readonly ok: true; readonly order: readonly Node[] } | { readonly ok: false; readonly cycle: readonly Node[] };

/**
 * Topological order over data and control edges. Stable: among ready nodes, the one created first
 * goes first. 'bfs' (Kahn, the default) interleaves independent branches; 'dfs' finishes a branch
 * before starting the next (shorter tensor lifetimes). On a cycle, returns the nodes on one cycle.
 */
export function topologicalSort(graph: Graph, order: TopoOrder = 'bfs'): TopoResult {
  const nodes = graph.nodes;
  const indegree = new Map<Node, number>();
  for (const n of nodes) indegree.set(n, 0);
  for (const n of nodes) for (const m of successors(n)) if (indegree.has(m)) indegree.set(m, (indegree.get(m) ?? 0) + 1);

  const result: Node[] = [];
  if (order === 'bfs') {
    const ready = new MinHeap();
    for (const n of nodes) if (indegree.get(n) === 0) ready.push(n);
    while (ready.size > 0) {
      const n = ready.pop() as Node;
      result.push(n);
      for (const m of successors(n)) {
        if (!indegree.has(m)) continue;
        const d = (indegree.get(m) as number) - 1;
        indegree.set(m, d);
        if (d === 0) ready.push(m);
      }
    }
  } else {
    // DFS: a stack of ready nodes; successors made ready are pushed so they run next.
    const stack: Node[] = nodes.filter((n) => indegree.get(n) === 0).reverse();
    while (stack.length > 0) {
      const n = stack.pop() as Node;
      result.push(n);
      const newlyReady: Node[] = [];
      for (const m of successors(n)) {
        if (!indegree.has(m)) continue;
        const d = (indegree.get(m) as number) - 1;
        indegree.set(m, d);
        if (d === 0) newlyReady.push(m);
      }
      newlyReady.sort((a, b) => b.id - a.id);
      stack.push(...newlyReady);
    }
  }
  if (result.length === nodes.length) return { ok: true, order: result };
  const remaining = new Set(nodes.filter((n) => (indegree.get(n) ?? 0) > 0));
  return { ok: false, cycle: findCycle(remaining) };
}

/** Successors by data and control edges, deduplicated, in output order. */
function successors(n: Node): Node[] {
  return n.outNodes();
}

function findCycle(candidates: Set<Node>): Node[] {
  // Walk predecessors inside the remaining set until a node repeats: that loop is a cycle.
  const start = [...candidates].sort((a, b) => a.id - b.id)[0];
  if (!start) return [];
  const path: Node[] = [];
  const pos = new Map<Node, number>();
  let cur: Node | undefined = start;
  while (cur && !pos.has(cur)) {
    pos.set(cur, path.length);
    path.push(cur);
    cur = cur.inNodes().find((p) => candidates.has(p));
  }
  if (!cur) return path;
  return path.slice(pos.get(cur)).reverse();
}

/** Nodes reachable from `from` following edges forward (excluding `from` unless on a cycle). */
export function reachableFrom(from: Node): Set<Node> {
  const seen = new Set<Node>();
  const stack = [...from.outNodes()];
  while (stack.length) {
    const n = stack.pop() as Node;
    if (seen.has(n)) continue;
    seen.add(n);
    stack.push(...n.outNodes());
  }
  return seen;
}

/** Whether `to` can be reached from `from` by a forward path. */
export function isReachable(from: Node, to: Node): boolean {
  if (from === to) return true;
  return reachableFrom(from).has(to);
}

/** Nodes from which any of `targets` can be reached (the targets included). */
export function ancestorsOf(targets: Iterable<Node>): Set<Node> {
  const seen = new Set<Node>();
  const stack = [...targets];
  while (stack.length) {
    const n = stack.pop() as Node;
    if (seen.has(n)) continue;
    seen.add(n);
    stack.push(...n.inNodes());
  }
  return seen;
}

class MinHeap {
  private readonly items: Node[] = [];
  get size(): number {
    return this.items.length;
  }
  push(n: Node): void {
    const a = this.items;
    a.push(n);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((a[p] as Node).id <= n.id) break;
      a[i] = a[p] as Node;
      i = p;
    }
    a[i] = n;
  }
  pop(): Node | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let mv = last;
      if (l < a.length && (a[l] as Node).id < mv.id) {
        m = l;
        mv = a[l] as Node;
      }
      if (r < a.length && (a[r] as Node).id < mv.id) m = r;
      if (m === i) break;
      a[i] = a[m] as Node;
      i = m;
    }
    a[i] = last;
    return top;
  }
}
