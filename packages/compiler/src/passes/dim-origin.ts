import type { Dim, Node, OutDataAnchor } from '@tsge/metadef';
import { TSGE_DOMAIN, constValueOf, isStaticDim, isUnknownRank, toNumberArray } from '@tsge/metadef';

/**
 * Where a dim of a tensor comes from, for proving two unknown (-1) dims equal: followed back
 * through ops whose output dim at an axis is by definition their input's dim at a known axis
 * (Transpose, Squeeze, Unsqueeze, Slice off that axis, unary ops, broadcasts from a constant that
 * is 1 there, MatMul's row and column axes, Attention's batch, heads and query rows, a Reshape's
 * constant 0 entries). Two dims are the same when they are the same number or symbol, or when both
 * lead back to the same axis of the same tensor.
 */
export interface DimRef {
  readonly anchor: OutDataAnchor;
  readonly axis: number;
}
type Origin = DimRef | { readonly dim: Dim };

const MAX_STEPS = 64;

/** Ops whose output 0 has their input 0's shape. */
const SAME_SHAPE = new Set([
  'Identity',
  'Cast',
  'Relu',
  'Sigmoid',
  'Tanh',
  'Exp',
  'Neg',
  'Sqrt',
  'Erf',
  'HardSigmoid',
  'HardSwish',
  'Softmax',
  'LogSoftmax',
  'LayerNormalization',
]);
const BINARY = new Set(['Add', 'Sub', 'Mul', 'Div']);

const isOnnx = (node: Node) => node.opDesc.domain === '' || node.opDesc.domain === 'ai.onnx';

function shapeOf(anchor: OutDataAnchor | undefined): readonly Dim[] | undefined {
  const shape = anchor?.node.opDesc.outputDescs[anchor.index]?.shape;
  return shape && !isUnknownRank(shape) ? shape : undefined;
}

function intsAttr(node: Node, name: string): number[] | undefined {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'ints' ? a.value.map(Number) : undefined;
}

/** Axes given as a constant input (opset ≥ 13) or an attribute (older opsets), normalised to `rank`. */
function axesOf(node: Node, input: number, rank: number): number[] | undefined {
  const peer = node.inData[input]?.peer;
  const t = peer ? constValueOf(peer.node) : undefined;
  const axes = peer ? (t ? toNumberArray(t) : undefined) : intsAttr(node, 'axes');
  return axes?.map((a) => (a < 0 ? a + rank : a));
}

/** The input anchor and axis an output axis of `node` copies its dim from, if the op defines one. */
function step(node: Node, axis: number, rank: number): { anchor: OutDataAnchor; axis: number } | undefined {
  const input = (i: number) => node.inData[i]?.peer;
  const x = input(0);
  const inRank = shapeOf(x)?.length;
  if (!x || inRank === undefined) return undefined;
  const type = node.type;
  if (node.opDesc.domain === TSGE_DOMAIN && type === 'FusedMatMul') return matmulStep(node, axis, rank, inRank);
  if (!isOnnx(node)) return undefined;
  if (SAME_SHAPE.has(type)) return inRank === rank ? { anchor: x, axis } : undefined;
  if (type === 'Transpose') {
    const perm = intsAttr(node, 'perm') ?? Array.from({ length: rank }, (_, i) => rank - 1 - i);
    const from = perm[axis];
    return perm.length === rank && from !== undefined ? { anchor: x, axis: from } : undefined;
  }
  if (type === 'Squeeze') {
    const axes = axesOf(node, 1, inRank);
    if (!axes) return undefined;
    const kept = Array.from({ length: inRank }, (_, i) => i).filter((i) => !axes.includes(i));
    const from = kept[axis];
    return kept.length === rank && from !== undefined ? { anchor: x, axis: from } : undefined;
  }
  if (type === 'Unsqueeze') {
    const axes = axesOf(node, 1, rank);
    if (!axes || axes.includes(axis) || inRank + axes.length !== rank) return undefined;
    return { anchor: x, axis: axis - axes.filter((a) => a < axis).length };
  }
  if (type === 'Slice') {
    // axes from input 3 (attribute before opset 10); without them it may slice any axis
    const axes = axesOf(node, node.inData.length > 1 ? 3 : 1, rank);
    return axes && inRank === rank && !axes.includes(axis) ? { anchor: x, axis } : undefined;
  }
  if (BINARY.has(type)) {
    // the one non-constant operand, against a constant that is 1 (or absent) at this axis
    const operands = [x, input(1)];
    const live = operands.filter((a) => a && !constValueOf(a.node));
    const other = operands.find((a) => a && constValueOf(a.node));
    const c = other ? shapeOf(other) : undefined;
    const v = live[0];
    if (live.length !== 1 || !v || !c || shapeOf(v)?.length !== rank || c.length > rank) return undefined;
    const at = axis - (rank - c.length);
    return at < 0 || c[at] === 1 ? { anchor: v, axis } : undefined;
  }
  if (type === 'MatMul') return matmulStep(node, axis, rank, inRank);
  // 4-D Attention: [batch, heads, query rows] of Q, then V's head size
  if (type === 'Attention') return inRank === 4 && rank === 4 && axis < 3 ? { anchor: x, axis } : undefined;
  if (type === 'Reshape') {
    const target = input(1);
    const t = target ? constValueOf(target.node) : undefined;
    const allowZero = node.opDesc.attrs.get('allowzero');
    // a 0 entry copies the input's dim at that index (unless allowzero)
    const copies = t && toNumberArray(t)[axis] === 0 && !(allowZero?.kind === 'int' && allowZero.value !== 0);
    return copies && axis < inRank ? { anchor: x, axis } : undefined;
  }
  return undefined;
}

/** MatMul's (and FusedMatMul's) rows come from A, its columns from B. */
function matmulStep(node: Node, axis: number, rank: number, inRank: number): DimRef | undefined {
  const [a, b] = [node.inData[0]?.peer, node.inData[1]?.peer];
  const bRank = shapeOf(b)?.length;
  if (!a || !b || bRank === undefined || inRank < 2 || bRank < 2) return undefined;
  if (axis === rank - 2) return { anchor: a, axis: inRank - 2 };
  if (axis === rank - 1) return { anchor: b, axis: bRank - 1 };
  return undefined;
}

function originOf(anchor: OutDataAnchor, axis: number): Origin | undefined {
  let at = { anchor, axis };
  for (let i = 0; i < MAX_STEPS; i++) {
    const shape = shapeOf(at.anchor);
    const dim = shape?.[at.axis];
    if (!shape || dim === undefined) return undefined;
    if (isStaticDim(dim) || typeof dim === 'string') return { dim };
    const next = at.anchor.index === 0 ? step(at.anchor.node, at.axis, shape.length) : undefined;
    if (!next) return at;
    at = next;
  }
  return at;
}

/** True when dim `axisA` of `a` provably equals dim `axisB` of `b` at run time. */
export function sameDim(a: OutDataAnchor | undefined, axisA: number, b: OutDataAnchor | undefined, axisB: number): boolean {
  const x = a ? originOf(a, axisA) : undefined;
  const y = b ? originOf(b, axisB) : undefined;
  if (!x || !y) return false;
  if ('dim' in x || 'dim' in y) return 'dim' in x && 'dim' in y && x.dim === y.dim;
  return x.anchor === y.anchor && x.axis === y.axis;
}
