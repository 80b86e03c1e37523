import type { Node } from '@tsge/metadef';
import { constValueOf, shapesEqual, toNumberArray } from '@tsge/metadef';
import { anchorDesc } from '../graph-utils.js';
import { definePass } from '../pass-manager.js';

/**
 * Removes nodes that pass data through unchanged: Identity, Dropout in inference (mask unused),
 * and Reshape/Flatten/Squeeze/Unsqueeze/Expand/Transpose/Cast whose output equals their input.
 */
export const removeNoopsPass = definePass({
  name: 'remove-noops',
  level: 1,
  run(graph, ctx) {
    let removed = 0;
    for (const node of graph.nodes) {
      if (node.graph !== graph || !isNoop(node)) continue;
      if (!node.inData[0]?.peer) continue;
      graph.bypass(node, 0, 0);
      removed++;
    }
    if (removed) ctx.count('noops-removed', removed);
    return { changed: removed > 0 };
  },
});

function isNoop(node: Node): boolean {
  const input = anchorDesc(node.inData[0]?.peer);
  const output = node.opDesc.outputDescs[0];
  if (!input || !output) return false;
  // extra outputs (Dropout's mask) must be unused
  if (node.outData.slice(1).some((o) => o.peers.length > 0)) return false;
  const sameTensor =
    input.dtype === output.dtype && shapesEqual(input.shape, output.shape) && !input.shape.some((d) => typeof d !== 'number' || d < 0);
  switch (node.type) {
    case 'Identity':
      return node.inData.length === 1 && (input.valueKind ?? 'tensor') === 'tensor';
    case 'Dropout': {
      // inference mode unless training_mode is a constant true
      const training = constValueOf(node.inData[2]?.peer?.node);
      if (node.inData[2]?.peer && (!training || toNumberArray(training)[0] !== 0)) return false;
      return true;
    }
    case 'Cast':
    case 'CastLike':
      // a cast to the same type never changes the shape, even a symbolic one
      return input.dtype === output.dtype && (input.valueKind ?? 'tensor') === 'tensor' && input.dtype !== 'string';
    case 'Reshape':
    case 'Flatten':
    case 'Squeeze':
    case 'Unsqueeze':
    case 'Expand':
      return sameTensor;
    case 'Transpose': {
      if (!sameTensor) return false;
      const perm = node.opDesc.attrs.get('perm');
      if (!perm) return input.shape.length <= 1;
      return perm.kind === 'ints' && perm.value.every((p, i) => p === i);
    }
    default:
      return false;
  }
}
