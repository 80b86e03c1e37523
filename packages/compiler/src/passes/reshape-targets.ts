import type { Graph, Node } from '@tsge/metadef';
import { CONST, createTensor, isUnknownRank, topologicalSort } from '@tsge/metadef';
import { addConst } from '../graph-utils.js';
import { definePass } from '../pass-manager.js';
import { sameDim } from './dim-origin.js';
import { shapeValue } from './shape-values.js';

/**
 * The constant a Reshape's computed target can be replaced by, or undefined: every entry a number
 * (kept: it is the value the target holds at run time), or a dim equal to the input's dim at the
 * same index — the same symbol, or the same axis of the same tensor (`dim-origin.ts`) — which a 0
 * copies (not under allowzero, where 0 means an empty dim).
 */
function constantTarget(node: Node): number[] | undefined {
  const x = node.inData[0]?.peer;
  const target = node.inData[1]?.peer;
  const input = x?.node.opDesc.outputDescs[x.index]?.shape;
  if (!x || !target || target.node.type === CONST || !input || isUnknownRank(input)) return undefined;
  const value = shapeValue(target);
  const allowZero = node.opDesc.attrs.get('allowzero');
  if (!value || (allowZero?.kind === 'int' && allowZero.value !== 0)) return undefined;
  const out: number[] = [];
  for (const [i, e] of value.entries()) {
    if (typeof e === 'number') out.push(e);
    else if (i >= input.length || e === null) return undefined;
    else if (typeof e === 'string' ? input[i] === e : sameDim(e.anchor, e.axis, x, i)) out.push(0);
    else return undefined;
  }
  return out;
}

/**
 * A Reshape whose target is computed from shapes (Shape → Gather/Slice → Concat on dynamic dims)
 * gets the constant that target always holds, so the shape subgraph goes (dead code) and the
 * Reshape needs no run-time target. In topological order: a Reshape rewritten here lets a later
 * one prove its dims through the earlier one's 0 entries.
 */
export const reshapeTargetsPass = definePass({
  name: 'reshape-targets',
  level: 1,
  run(graph: Graph, ctx) {
    const sorted = topologicalSort(graph);
    if (!sorted.ok) return { changed: false };
    let rewritten = 0;
    for (const node of sorted.order) {
      if (node.type !== 'Reshape' || !(node.opDesc.domain === '' || node.opDesc.domain === 'ai.onnx')) continue;
      const dims = constantTarget(node);
      const slot = node.inData[1];
      if (!dims || !slot) continue;
      const t = addConst(graph, `${node.name}_target`, createTensor('int64', [dims.length], BigInt64Array.from(dims, BigInt)));
      graph.link(t.outData[0] as Node['outData'][number], slot);
      rewritten++;
    }
    if (rewritten) ctx.count('reshape-targets', rewritten);
    return { changed: rewritten > 0 };
  },
});
