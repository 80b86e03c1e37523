import type { FusionMatch, FusionPassV1, Graph, Node, OutDataAnchor, Value } from '@tsge/metadef';
import { attr, createOpDesc, isUnknownRank } from '@tsge/metadef';
import { uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { constNumbers, descOf, pattern } from './patterns.js';

// The parser writes an opset < 13 Softmax whose input rank it does not know as
// Reshape(Softmax(Flatten(x, axis)), Shape(x)); static shapes fold the Shape to a constant. Once
// shapes are inferred and the Flatten is at x's last axis, that is a softmax over x's last axis.
// The Flatten and the Shape are not part of the pattern: both may have other users (the common
// subexpression pass merges those of a Softmax and a LogSoftmax of one tensor).
const SOFTMAX_LIKE = { SoftmaxLike: ['Softmax', 'LogSoftmax', 'Hardmax'] };
const PATTERN = pattern(
  'softmax-unflatten',
  2,
  (op, x) => [op('Reshape', [op('SoftmaxLike', [x[0] as Value], 'softmax'), x[1] as Value], 'restore')],
  SOFTMAX_LIKE,
);

const intAttr = (node: Node, name: string): number | undefined => {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'int' ? a.value : undefined;
};
const isOnnx = (node: Node) => node.opDesc.domain === '' || node.opDesc.domain === 'ai.onnx';

/** The tensor x of Reshape(Softmax(Flatten(x, last axis)), Shape(x) or x's static shape), when the match is one. */
function unflattened(m: FusionMatch): OutDataAnchor | undefined {
  const flatten = m.inputs[0]?.node;
  const x = flatten?.inData[0]?.peer;
  const desc = descOf(x);
  if (flatten?.type !== 'Flatten' || !isOnnx(flatten) || !x || !desc || isUnknownRank(desc.shape)) return undefined;
  if (!['float32', 'float16'].includes(desc.dtype) || desc.shape.length < 1) return undefined;
  const rank = desc.shape.length;
  const at = intAttr(flatten, 'axis') ?? 1;
  // over [rows, last] axis 1 and −1 are the last axis in every opset; the default depends on it
  const axis = intAttr(m.nodes.get('softmax') as Node, 'axis') ?? -1;
  if ((at !== rank - 1 && at !== -1) || (axis !== 1 && axis !== -1)) return undefined;
  const target = m.inputs[1];
  const shape = target?.node;
  if (shape?.type === 'Shape' && isOnnx(shape)) {
    // an empty x with a 0 dim before the last makes the original Reshape fail; this one does not
    const whole = !shape.opDesc.attrs.has('end') && (intAttr(shape, 'start') ?? 0) === 0;
    return whole && shape.inData[0]?.peer === x ? x : undefined;
  }
  // the constant is x's own static shape (no 0 or −1 for Reshape to reinterpret)
  const dims = constNumbers(target);
  return dims?.length === rank && dims.every((d, i) => d > 0 && d === desc.shape[i]) ? x : undefined;
}

function replace(m: FusionMatch, graph: Graph): Node[] {
  const restore = m.nodes.get('restore') as Node;
  const inner = m.nodes.get('softmax') as Node;
  const input = unflattened(m) as OutDataAnchor;
  const x = descOf(input);
  const rank = x?.shape.length ?? 0;
  const out = restore.opDesc.outputDescs[0];
  // axis rank − 1 is x's last axis both for opset < 13 (2-D coercion there) and for newer opsets
  const attrs = new Map(inner.opDesc.attrs);
  attrs.set('axis', attr.int(rank - 1));
  const node = graph.addNode(
    createOpDesc({
      name: uniqueName(graph, `${restore.name}_last_axis`),
      type: inner.type,
      domain: inner.opDesc.domain,
      attrs: [...attrs],
      outputDescs: out && x ? [{ ...out, shape: [...x.shape], originShape: [...x.shape] }] : [],
      outputNames: [restore.opDesc.outputNames[0] ?? restore.name],
    }),
    { inputs: 1, outputs: 1 },
  );
  const [flatten, target] = [m.inputs[0]?.node, m.inputs[1]?.node];
  replaceMatchWith(graph, m, node, [input]);
  // the Flatten and Shape left without users go now: they would keep x an escaping intermediate
  // of the patterns that follow (attention's Q·Kᵀ)
  for (const n of [flatten, target]) if (n?.graph === graph && n.outData.every((o) => o.peers.length === 0)) graph.removeNode(n);
  return [node];
}

/**
 * Reshape(Softmax(Flatten(x, last axis)), Shape(x) or x's static shape) becomes Softmax(x) over its
 * last axis (O2; also LogSoftmax and Hardmax): three nodes fewer, and attention fusion sees one
 * Softmax over the scores.
 */
export const softmaxUnflattenFusion: FusionPassV1 = {
  specVersion: 'v1',
  name: 'softmax-unflatten',
  level: 2,
  patterns: () => [PATTERN],
  requirements: (m) => unflattened(m) !== undefined,
  replace,
};
