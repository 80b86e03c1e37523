import type { FusionMatch, FusionPassV1, Graph, Node, OutDataAnchor, TensorDesc } from '@tsge/metadef';
import { TSGE_DOMAIN, attr, createOpDesc } from '@tsge/metadef';
import { APPLY_ROTARY } from '@tsge/ops';
import { uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { constNumbers, descOf, isConstScalar, pattern } from './patterns.js';

// x·cos + Concat(−x₂, x₁)·sin, the rotate-half rotary embedding as PyTorch exports it; inputs are
// x, cos, x₂, x₁, sin (and −1 when the negation is a Mul)
const negForm = pattern('rotary', 5, (op, x) => [
  op('Add', [op('Mul', [x[0], x[1]], 'xcos'), op('Mul', [op('Concat', [op('Neg', [x[2]], 'neg'), x[3]], 'concat'), x[4]], 'rsin')], 'sum'),
]);
const mulForm = pattern('rotary-mul', 6, (op, x) => [
  op(
    'Add',
    [op('Mul', [x[0], x[1]], 'xcos'), op('Mul', [op('Concat', [op('Mul', [x[2], x[5]], 'neg'), x[3]], 'concat'), x[4]], 'rsin')],
    'sum',
  ),
]);

/**
 * x·cos + rotate_every_two(x)·sin, GPT-J's interleaved form: the odd and even elements of x's last
 * axis (Slices of step 2) stacked as (−odd, even) on a new last axis (Unsqueeze, Concat) and
 * flattened back (Reshape). Inputs: x, cos, odd, even, sin, the Reshape's shape, then the two
 * Unsqueeze axes (opset ≥ 13 takes them as inputs) and −1 (the negation as a Mul).
 */
function interleavedForm(name: string, axesInputs: boolean, mulNeg: boolean) {
  const count = 6 + (axesInputs ? 2 : 0) + (mulNeg ? 1 : 0);
  return pattern(name, count, (op, x) => {
    const neg = mulNeg ? op('Mul', [x[2], x[count - 1]], 'neg') : op('Neg', [x[2]], 'neg');
    const odd = op('Unsqueeze', axesInputs ? [neg, x[6]] : [neg], 'unsqueezeOdd');
    const even = op('Unsqueeze', axesInputs ? [x[3], x[7]] : [x[3]], 'unsqueezeEven');
    const flat = op('Reshape', [op('Concat', [odd, even], 'concat'), x[5]], 'reshape');
    return [op('Add', [op('Mul', [x[0], x[1]], 'xcos'), op('Mul', [flat, x[4]], 'rsin')], 'sum')];
  });
}
const INTERLEAVED_FORMS = [
  interleavedForm('rotary-interleaved', true, false),
  interleavedForm('rotary-interleaved-mul', true, true),
  interleavedForm('rotary-interleaved-v11', false, false),
  interleavedForm('rotary-interleaved-v11-mul', false, true),
];
const isInterleaved = (m: FusionMatch): boolean => m.pattern.startsWith('rotary-interleaved');

const intAttr = (node: Node, name: string): number | undefined => {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'int' ? a.value : undefined;
};
const intsAttr = (node: Node, name: string): number[] | undefined => {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'ints' ? a.value.map(Number) : undefined;
};

/** x's desc when it is float32 of known rank with a known, even, non-zero last axis. */
function rotatable(d: TensorDesc | undefined): d is TensorDesc {
  if (d?.dtype !== 'float32' || d.shape[0] === -2 || d.shape.length === 0) return false;
  const width = d.shape[d.shape.length - 1];
  return typeof width === 'number' && width > 0 && width % 2 === 0;
}

/** cos or sin: float32, known dims, broadcasting to x without growing it, last axis equal to x's. */
function broadcastsTo(t: TensorDesc | undefined, x: TensorDesc): boolean {
  if (t?.dtype !== 'float32' || t.shape[0] === -2 || t.shape.length === 0 || t.shape.length > x.shape.length) return false;
  const offset = x.shape.length - t.shape.length;
  return t.shape.every((d, k) => {
    const xd = x.shape[offset + k];
    if (k === t.shape.length - 1) return d === xd;
    return d === 1 || (typeof d === 'number' && d >= 0 && d === xd);
  });
}

/** Whether `a` feeds only `consumer`. */
const onlyFeeds = (a: OutDataAnchor, consumer: Node): boolean => a.peers.length === 1 && a.peers[0]?.node === consumer;

/** The [start, end, step] of a Slice of `x` along its last axis with a positive step, or undefined. */
function lastAxisSlice(slice: Node, rank: number, width: number): [number, number, number] | undefined {
  let starts: number[] | undefined;
  let ends: number[] | undefined;
  let axes: number[] | undefined;
  let steps: number[] | undefined;
  // opset ≥ 10 takes starts and ends as inputs, older ones as attributes (told apart by form)
  if (slice.inData[1]?.peer) {
    const inputs = slice.inData.map((a) => a.peer);
    starts = constNumbers(inputs[1]);
    ends = constNumbers(inputs[2]);
    axes = inputs[3] ? constNumbers(inputs[3]) : undefined;
    steps = inputs[4] ? constNumbers(inputs[4]) : [1];
    if (inputs[3] && !axes) return undefined;
  } else {
    starts = intsAttr(slice, 'starts');
    ends = intsAttr(slice, 'ends');
    axes = intsAttr(slice, 'axes');
    steps = [1];
  }
  if (!starts || !ends || !steps || starts.length !== 1 || ends.length !== 1 || steps.length !== 1 || !((steps[0] as number) > 0))
    return undefined;
  const axis = axes ? axes[0] : 0;
  if ((axes && axes.length !== 1) || axis === undefined || (axis !== -1 && axis !== rank - 1)) return undefined;
  const clamp = (v: number) => Math.min(width, Math.max(0, v < 0 ? v + width : v));
  return [clamp(starts[0] as number), clamp(ends[0] as number), steps[0] as number];
}

/**
 * Whether x₁ and x₂ are the first and second halves of x's last axis, from one Split or from two
 * Slices of x, each used only by the matched Concat (x₁) or negation (x₂). Returns the nodes that
 * made them (removed once the match is replaced), or undefined.
 */
function halvesOf(m: FusionMatch): Node[] | undefined {
  const [x, , x2, x1] = m.inputs as [OutDataAnchor, OutDataAnchor, OutDataAnchor, OutDataAnchor];
  const xd = descOf(x);
  if (!rotatable(xd)) return undefined;
  const rank = xd.shape.length;
  const width = xd.shape[rank - 1] as number;
  const half = width / 2;
  const concat = m.nodes.get('concat') as Node;
  const neg = m.nodes.get('neg') as Node;
  if (!onlyFeeds(x1, concat) || !onlyFeeds(x2, neg)) return undefined;
  if (x1.node === x2.node) {
    const split = x1.node;
    if (split.type !== 'Split' || split.opDesc.domain !== 'ai.onnx' || split.outData.length !== 2) return undefined;
    if (x1.index !== 0 || x2.index !== 1 || split.inData[0]?.peer !== x) return undefined;
    const axis = intAttr(split, 'axis') ?? 0;
    if (axis !== -1 && axis !== rank - 1) return undefined;
    // sizes: the `split` input (opset ≥ 13), the attribute (older), or equal parts by default
    const sizes = split.inData[1]?.peer ? constNumbers(split.inData[1].peer) : (intsAttr(split, 'split') ?? []);
    if (sizes === undefined) return undefined;
    const equal = sizes.length === 0 || (sizes.length === 2 && sizes[0] === half && sizes[1] === half);
    return equal ? [split] : undefined;
  }
  for (const [a, want] of [
    [x1, [0, half]],
    [x2, [half, width]],
  ] as const) {
    const slice = a.node;
    if (slice.type !== 'Slice' || slice.opDesc.domain !== 'ai.onnx' || slice.inData[0]?.peer !== x) return undefined;
    const range = lastAxisSlice(slice, rank, width);
    if (!range || range[0] !== want[0] || range[1] !== want[1] || range[2] !== 1) return undefined;
  }
  return [x1.node, x2.node];
}

/**
 * Whether the odd and even inputs of an interleaved match are Slices of x (from 1 and 0, step 2, to
 * the end of the last axis), stacked on a new last axis and flattened back to x's shape. Returns
 * the Slices (removed once the match is replaced), or undefined.
 */
function pairsOf(m: FusionMatch): Node[] | undefined {
  const [x, , odd, even] = m.inputs as [OutDataAnchor, OutDataAnchor, OutDataAnchor, OutDataAnchor];
  const xd = descOf(x);
  if (!rotatable(xd)) return undefined;
  const rank = xd.shape.length;
  const width = xd.shape[rank - 1] as number;
  const isLast = (axis: number | undefined) => axis === -1 || axis === rank;
  const concat = m.nodes.get('concat') as Node;
  if (!isLast(intAttr(concat, 'axis'))) return undefined;
  for (const name of ['unsqueezeOdd', 'unsqueezeEven']) {
    const u = m.nodes.get(name) as Node;
    const axes = u.inData[1]?.peer ? constNumbers(u.inData[1].peer) : intsAttr(u, 'axes');
    if (axes?.length !== 1 || !isLast(axes[0])) return undefined;
  }
  const flat = descOf((m.nodes.get('reshape') as Node).outData[0]);
  if (flat?.shape.length !== rank || flat.shape.some((d, i) => d !== xd.shape[i] || (typeof d === 'number' && d < 0))) return undefined;
  if (!onlyFeeds(odd, m.nodes.get('neg') as Node) || !onlyFeeds(even, m.nodes.get('unsqueezeEven') as Node)) return undefined;
  for (const [a, start] of [
    [odd, 1],
    [even, 0],
  ] as const) {
    const slice = a.node;
    if (slice.type !== 'Slice' || slice.opDesc.domain !== 'ai.onnx' || slice.inData[0]?.peer !== x) return undefined;
    const range = lastAxisSlice(slice, rank, width);
    if (!range || range[0] !== start || range[1] !== width || range[2] !== 2) return undefined;
  }
  return [odd.node, even.node];
}

function requirementsHold(m: FusionMatch): boolean {
  const x = descOf(m.inputs[0]);
  if (!rotatable(x) || !broadcastsTo(descOf(m.inputs[1]), x) || !broadcastsTo(descOf(m.inputs[4]), x)) return false;
  if (isInterleaved(m))
    return (!m.pattern.endsWith('-mul') || isConstScalar(m.inputs[m.inputs.length - 1], -1, 0)) && pairsOf(m) !== undefined;
  if (m.pattern === mulForm.name && !isConstScalar(m.inputs[5], -1, 0)) return false;
  const concat = m.nodes.get('concat') as Node;
  const axis = intAttr(concat, 'axis');
  if (axis !== -1 && axis !== x.shape.length - 1) return false;
  return halvesOf(m) !== undefined;
}

/**
 * Rotary position embedding written out as x·cos + Concat(−x₂, x₁)·sin, with x₁, x₂ the halves
 * of x's last axis (one Split or two Slices) and the negation a Neg or a Mul by −1, becomes
 * tsge::ApplyRotary(x, cos, sin) (O3); so does GPT-J's interleaved form (see interleavedForm), as
 * ApplyRotary with interleaved = 1. cos and sin broadcast to x and span its last axis. Halves in the
 * other order, a split off the middle, another axis or an intermediate used elsewhere stay.
 */
export function rotaryFusion(supported: (type: string, domain?: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'rotary',
    level: 3,
    patterns: () => [negForm, mulForm, ...INTERLEAVED_FORMS],
    requirements: (m) => supported(APPLY_ROTARY, TSGE_DOMAIN) && requirementsHold(m),
    replace(m, graph: Graph) {
      const last = m.nodes.get('sum') as Node;
      const interleaved = isInterleaved(m);
      const halves = (interleaved ? pairsOf(m) : halvesOf(m)) ?? [];
      const node = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${last.name}_rotary`),
          type: APPLY_ROTARY,
          domain: TSGE_DOMAIN,
          attrs: interleaved ? [['interleaved', attr.int(1)]] : [],
          outputDescs: [...last.opDesc.outputDescs.slice(0, 1)],
          outputNames: [last.opDesc.outputNames[0] ?? last.name],
        }),
        { inputs: 3, outputs: 1 },
      );
      replaceMatchWith(graph, m, node, [m.inputs[0], m.inputs[1], m.inputs[4]]);
      for (const h of halves) if (h.graph === graph && h.outData.every((o) => o.peers.length === 0)) graph.removeNode(h);
      return [node];
    },
  };
}
