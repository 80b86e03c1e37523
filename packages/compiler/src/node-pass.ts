import type { Graph, GraphPassV1, Node, OptLevel, PassContext, PassStage } from '@tsge/metadef';
import { topologicalSort } from '@tsge/metadef';

export interface NodePassSpec {
  readonly name: string;
  readonly level: OptLevel;
  readonly stage?: PassStage;
  /** Visits one node; returns whether it changed the graph. `ctx.revisit(n)` queues `n` again. */
  visit(node: Node, graph: Graph, ctx: PassContext): boolean;
}

/** Visits per node before a node pass gives up converging (bounds a fixpoint that would not end). */
export const MAX_VISITS_PER_NODE = 8;

/**
 * A pass that visits nodes in topological order from a worklist (GE's node passes): a visit may
 * ask for any node to be visited again, until nothing is queued or the visit budget runs out.
 */
export function defineNodePass(spec: NodePassSpec): GraphPassV1 {
  return {
    specVersion: 'v1',
    name: spec.name,
    level: spec.level,
    ...(spec.stage ? { stage: spec.stage } : {}),
    run(graph, ctx) {
      const sorted = topologicalSort(graph);
      const queue: Node[] = sorted.ok ? [...sorted.order] : [...graph.nodes];
      const queued = new Set(queue);
      let budget = Math.max(1, queue.length) * MAX_VISITS_PER_NODE;
      let changed = false;
      const local: PassContext = {
        ...ctx,
        report: (d) => ctx.report(d),
        count: (name, by) => ctx.count(name, by),
        revisit: (node) => {
          if (!queued.has(node)) {
            queued.add(node);
            queue.push(node);
          }
        },
      };
      while (queue.length > 0 && budget-- > 0) {
        const node = queue.shift() as Node;
        queued.delete(node);
        if (node.graph !== graph) continue;
        if (spec.visit(node, graph, local)) changed = true;
      }
      return { changed };
    },
  };
}
