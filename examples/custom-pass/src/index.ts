// An example of a custom compiler pass: it removes arithmetic that leaves its input unchanged.
import type { GraphPassV1, Node } from '@tsge/metadef';
import { constValueOf, shapesEqual, toNumberArray } from '@tsge/metadef';

/** Whether input `index` of `node` is a constant whose every element equals `value`. */
function isConstantEqualTo(node: Node, index: number, value: number): boolean {
  const t = constValueOf(node.inData[index]?.peer?.node);
  return t !== undefined && !Array.isArray(t.data) && toNumberArray(t).every((v) => v === value);
}

/** The identity element of each op for its second operand. */
const IDENTITY: Readonly<Record<string, number>> = { Mul: 1, Div: 1, Add: 0, Sub: 0 };

/**
 * `x * 1`, `x / 1`, `x + 0`, `x - 0` → `x`, when the result has x's shape and dtype (a constant of
 * a larger shape would broadcast x, so those stay). Runs after shape inference, as GE's custom
 * passes at that stage do.
 */
export const algebraicIdentitiesPass: GraphPassV1 = {
  specVersion: 'v1',
  name: 'example-algebraic-identities',
  level: 1,
  stage: 'after-infershape',
  run(graph, ctx) {
    let removed = 0;
    for (const node of graph.nodes) {
      const identity = IDENTITY[node.type];
      if (identity === undefined || node.graph !== graph || !isConstantEqualTo(node, 1, identity)) continue;
      const input = node.inData[0]?.peer;
      const inDesc = input?.node.opDesc.outputDescs[input.index];
      const outDesc = node.opDesc.outputDescs[0];
      if (!input || !inDesc || !outDesc || inDesc.dtype !== outDesc.dtype || !shapesEqual(inDesc.shape, outDesc.shape)) continue;
      graph.bypass(node, 0, 0);
      removed++;
    }
    if (removed) ctx.count('identities-removed', removed);
    return { changed: removed > 0 };
  },
};
