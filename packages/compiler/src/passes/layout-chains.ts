import type { Graph, Node } from '@tsge/metadef';
import { attr, createTensor, isStaticShape } from '@tsge/metadef';
import { addConst, hasSingleConsumer } from '../graph-utils.js';
import { definePass } from '../pass-manager.js';
import { sinkTranspose, splitTranspose } from './transpose-sinking.js';

const RESHAPE_LIKE = new Set(['Reshape', 'Flatten', 'Squeeze', 'Unsqueeze']);

/**
 * Simplifies chains: Transpose→Transpose composes into one permutation (or none), a Transpose
 * sinks below the elementwise ops and reductions it feeds (so pairs around them meet and cancel),
 * and a reshape-like op feeding only a Reshape with a static output shape is skipped.
 */
export const layoutChainsPass = definePass({
  name: 'transpose-reshape-chains',
  level: 1,
  run(graph, ctx) {
    let changed = 0;
    // sinking moves a Transpose one op at a time: repeat until nothing moves (bounded by the graph size)
    for (let round = 0, moved = 1; moved && round <= graph.nodeCount; round++) {
      moved = 0;
      for (const node of graph.nodes) {
        if (node.graph !== graph) continue;
        if (node.type === 'Transpose' && (mergeTransposes(graph, node) || sinkTranspose(graph, node) || splitTranspose(graph, node)))
          moved++;
        else if (node.type === 'Reshape' && skipReshapeSource(graph, node)) moved++;
      }
      changed += moved;
    }
    if (changed) ctx.count('chains-simplified', changed);
    return { changed: changed > 0 };
  },
});

function permOf(node: Node, rank: number): number[] | undefined {
  const a = node.opDesc.attrs.get('perm');
  if (!a) return Array.from({ length: rank }, (_, i) => rank - 1 - i);
  return a.kind === 'ints' ? [...a.value] : undefined;
}

/** node = Transpose(second) whose input is Transpose(first) used only here. */
function mergeTransposes(graph: Graph, second: Node): boolean {
  const first = second.inData[0]?.peer?.node;
  if (first?.type !== 'Transpose') return false;
  if (!hasSingleConsumer(first)) return cancelInverse(graph, first, second);
  const rank = first.opDesc.outputDescs[0]?.shape.length;
  if (rank === undefined || first.opDesc.outputDescs[0]?.shape[0] === -2) return false;
  const p1 = permOf(first, rank);
  const p2 = permOf(second, rank);
  if (!p1 || !p2 || p1.length !== rank || p2.length !== rank) return false;
  // y[i] = x1[p2[i]] = x[p1[p2[i]]]
  const composed = p2.map((i) => p1[i] as number);
  const source = first.inData[0]?.peer;
  if (!source) return false;
  graph.link(source, second.inData[0] as Node['inData'][number]);
  graph.removeNode(first);
  second.opDesc.attrs.set('perm', attr.ints(composed));
  if (composed.every((p, i) => p === i)) graph.bypass(second);
  return true;
}

/** T⁻¹(T(x)) where T feeds others too: T⁻¹'s consumers read x, T stays for the rest. */
function cancelInverse(graph: Graph, first: Node, second: Node): boolean {
  const rank = first.opDesc.outputDescs[0]?.shape.length;
  const source = first.inData[0]?.peer;
  if (rank === undefined || first.opDesc.outputDescs[0]?.shape[0] === -2 || !source || second.outControl.peers.length) return false;
  const p1 = permOf(first, rank);
  const p2 = permOf(second, rank);
  if (!p1 || !p2 || p1.length !== rank || p2.length !== rank) return false;
  if (!p2.every((i, k) => p1[i] === k)) return false;
  graph.replaceAllUses(second.outData[0] as Node['outData'][number], source);
  graph.removeNode(second);
  return true;
}

/** Reshape(x') where x' = reshape-like(x): reshape x directly to the static output dims. */
function skipReshapeSource(graph: Graph, reshape: Node): boolean {
  const source = reshape.inData[0]?.peer?.node;
  if (!source || !RESHAPE_LIKE.has(source.type) || !hasSingleConsumer(source)) return false;
  const out = reshape.opDesc.outputDescs[0];
  if (!out || !isStaticShape(out.shape)) return false;
  const origin = source.inData[0]?.peer;
  if (!origin) return false;
  const dims = out.shape;
  const shape = addConst(
    graph,
    `${reshape.name}_shape`,
    createTensor(
      'int64',
      [dims.length],
      BigInt64Array.from(dims, (d) => BigInt(d)),
    ),
  );
  graph.link(origin, reshape.inData[0] as Node['inData'][number]);
  graph.addEdge(shape, 0, reshape, 1);
  reshape.opDesc.attrs.delete('allowzero');
  graph.removeNode(source);
  return true;
}
