import type { FusionMatch, FusionPassV1, Graph, Node, OutDataAnchor } from '@tsge/metadef';
import { TSGE_DOMAIN, createOpDesc, opsetOf } from '@tsge/metadef';
import { SWIGLU } from '@tsge/ops';
import { uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { constNumbers, descOf, pattern } from './patterns.js';

// Mul(SiLU(gate), up), with SiLU written as gate · Sigmoid(gate) or already a Swish (alpha 1)
const sigmoidForm = pattern('swiglu', 2, (op, x) => [
  op('Mul', [op('Mul', [x[0], op('Sigmoid', [x[0]], 'sigmoid')], 'silu'), x[1]], 'gated'),
]);
const swishForm = pattern('swiglu-swish', 2, (op, x) => [op('Mul', [op('Swish', [x[0]], 'silu'), x[1]], 'gated')]);

/** Gate and up of one shape (SwiGLU does not broadcast), float32 and of known rank. */
function sameShape(m: FusionMatch): boolean {
  const g = descOf(m.inputs[0]);
  const u = descOf(m.inputs[1]);
  if (!g || !u || g.dtype !== 'float32' || u.dtype !== 'float32' || g.shape[0] === -2 || u.shape[0] === -2) return false;
  return g.shape.length === u.shape.length && g.shape.every((d, i) => d !== -1 && d === u.shape[i]);
}

function swishAlphaIsOne(m: FusionMatch): boolean {
  if (m.pattern !== swishForm.name) return true;
  const a = (m.nodes.get('silu') as Node).opDesc.attrs.get('alpha');
  return a === undefined || (a.kind === 'float' && a.value === 1);
}

/**
 * The Split that made gate (its output 0) and up (its output 1) as the two halves of the last
 * axis, used by nothing else: then SwiGLU reads the Split's input instead.
 */
function halvesSplit(m: FusionMatch): Node | undefined {
  const [gate, up] = m.inputs as [OutDataAnchor, OutDataAnchor];
  const split = gate.node;
  if (split.type !== 'Split' || split.opDesc.domain !== 'ai.onnx' || up.node !== split || gate.index !== 0 || up.index !== 1)
    return undefined;
  const matched = new Set(m.nodes.values());
  const onlyMatched = (a: OutDataAnchor) => a.peers.every((p) => matched.has(p.node));
  if (split.outData.length !== 2 || !onlyMatched(gate) || !onlyMatched(up)) return undefined;
  const x = descOf(split.inData[0]?.peer);
  const rank = x?.shape.length ?? 0;
  if (!x || x.shape[0] === -2 || rank === 0) return undefined;
  const a = split.opDesc.attrs.get('axis');
  const axis = a?.kind === 'int' ? a.value : 0;
  if (axis !== -1 && axis !== rank - 1) return undefined;
  const width = x.shape[rank - 1];
  if (typeof width !== 'number' || width < 0 || width % 2 !== 0) return undefined;
  // sizes: the `split` input (opset ≥ 13), the attribute (older), or equal parts by default
  const sizesAttr = split.opDesc.attrs.get('split');
  const sizes =
    opsetOf(split) >= 13
      ? split.inData[1]?.peer
        ? constNumbers(split.inData[1].peer)
        : []
      : sizesAttr?.kind === 'ints'
        ? sizesAttr.value.map(Number)
        : [];
  if (sizes === undefined) return undefined;
  const equal = sizes.length === 0 || (sizes.length === 2 && sizes[0] === width / 2 && sizes[1] === width / 2);
  return equal ? split : undefined;
}

/**
 * SwiGLU written as Mul(gate · Sigmoid(gate), up) or Mul(Swish(gate), up) becomes tsge::SwiGLU (O3);
 * gate and up taken as the halves of one Split (the fused gate/up projection) make it read the
 * Split's input. A broadcast up, a Swish with another alpha or a split on another axis stay.
 */
export function swigluFusion(supported: (type: string, domain?: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'swiglu',
    level: 3,
    patterns: () => [sigmoidForm, swishForm],
    requirements: (m) => supported(SWIGLU, TSGE_DOMAIN) && sameShape(m) && swishAlphaIsOne(m),
    replace(m, graph: Graph) {
      const last = m.nodes.get('gated') as Node;
      const split = halvesSplit(m);
      const inputs = split ? [split.inData[0]?.peer] : [m.inputs[0], m.inputs[1]];
      const node = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${last.name}_swiglu`),
          type: SWIGLU,
          domain: TSGE_DOMAIN,
          outputDescs: [...last.opDesc.outputDescs.slice(0, 1)],
          outputNames: [last.opDesc.outputNames[0] ?? last.name],
        }),
        { inputs: inputs.length, outputs: 1 },
      );
      replaceMatchWith(graph, m, node, inputs);
      if (split?.outData.every((o) => o.peers.length === 0)) graph.removeNode(split);
      return [node];
    },
  };
}
