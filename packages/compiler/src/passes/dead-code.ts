import { ancestorsOf } from '@tsge/metadef';
import { definePass } from '../pass-manager.js';

/** Dead-code elimination: keeps only nodes the NetOutput depends on (graph inputs always stay). */
export const deadCodePass = definePass({
  name: 'dead-code-elimination',
  level: 0,
  run(graph, ctx) {
    const net = graph.outputNode();
    if (!net) return { changed: false };
    const live = ancestorsOf([net]);
    let removed = 0;
    for (const node of graph.nodes) {
      if (live.has(node) || node.type === 'Data') continue;
      for (const name of node.opDesc.subgraphNames) graph.removeSubgraph(name);
      graph.removeNode(node);
      removed++;
    }
    if (removed) ctx.count('dead-nodes', removed);
    return { changed: removed > 0 };
  },
});
