import type { IGraphProto } from '../internal/proto.js';
import type { RawNode } from './raw-node.js';

export const MAX_SUBGRAPH_DEPTH = 32;

/**
 * Orders nodes so producers come first (ONNX requires it, but not every exporter complies).
 * Nodes in a cycle, or reading names nobody produces, keep their original relative order.
 */
export function orderNodes(nodes: readonly RawNode[]): RawNode[] {
  const producer = new Map<string, number>();
  nodes.forEach((n, i) => {
    for (const o of n.outputs) if (o && !producer.has(o)) producer.set(o, i);
  });
  const state = new Uint8Array(nodes.length); // 0 new, 1 visiting, 2 done
  const order: RawNode[] = [];
  const stack: [number, number][] = [];
  const dependencies = (n: RawNode): string[] => [...n.inputs, ...outerNames(n)];
  for (let start = 0; start < nodes.length; start++) {
    if (state[start]) continue;
    stack.push([start, 0]);
    state[start] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1] as [number, number];
      const deps = dependencies(nodes[top[0]] as RawNode);
      let pushed = false;
      while (top[1] < deps.length) {
        const p = producer.get(deps[top[1]++] as string);
        if (p !== undefined && state[p] === 0) {
          state[p] = 1;
          stack.push([p, 0]);
          pushed = true;
          break;
        }
      }
      if (!pushed) {
        stack.pop();
        state[top[0]] = 2;
        order.push(nodes[top[0]] as RawNode);
      }
    }
  }
  return order;
}

/** Names a node's subgraphs read (over-approximated: every input name in them). */
function outerNames(node: RawNode): string[] {
  if (node.graphs.size === 0) return [];
  const names: string[] = [];
  const visit = (g: IGraphProto, depth: number): void => {
    if (depth > MAX_SUBGRAPH_DEPTH) return;
    for (const n of g.node ?? []) {
      for (const i of n.input ?? []) if (i) names.push(i);
      for (const a of n.attribute ?? []) if (a.g) visit(a.g, depth + 1);
    }
    for (const o of g.output ?? []) if (o.name) names.push(o.name);
  };
  for (const g of node.graphs.values()) visit(g, 0);
  return names;
}
