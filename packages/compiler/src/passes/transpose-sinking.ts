import type { Graph, HostTensor, Node, OutDataAnchor } from '@tsge/metadef';
import {
  ATTR_VALUE,
  CONST,
  type TensorDesc,
  attr,
  createOpDesc,
  createTensor,
  isStaticShape,
  stridesOf,
  toNumberArray,
} from '@tsge/metadef';
import { addConst, hasSingleConsumer } from '../graph-utils.js';

// Layout conversions (NHWC models run on NCHW kernels) leave Transpose pairs around layout-
// sensitive ops with elementwise ops between them: Conv → T → Add(bias) → Relu → T⁻¹ → Conv.
// Sinking a Transpose below the elementwise ops it feeds (and through reductions) brings the pair
// together, where the chain merge cancels it.

const ELEMENTWISE = new Set([
  'Relu',
  'Clip',
  'Sigmoid',
  'Tanh',
  'LeakyRelu',
  'Elu',
  'Selu',
  'Celu',
  'Exp',
  'Log',
  'Sqrt',
  'Abs',
  'Neg',
  'Floor',
  'Ceil',
  'Round',
  'Reciprocal',
  'Erf',
  'Softplus',
  'Softsign',
  'HardSigmoid',
  'HardSwish',
  'Mish',
  'Gelu',
  'Sin',
  'Cos',
  'Sign',
  'Not',
  'IsNaN',
  'Cast',
  'Add',
  'Sub',
  'Mul',
  'Div',
  'Pow',
  'Max',
  'Min',
  'Sum',
  'Mean',
  'PRelu',
  'Equal',
  'Less',
  'LessOrEqual',
  'Greater',
  'GreaterOrEqual',
  'And',
  'Or',
  'Xor',
  'Where',
]);
const REDUCTIONS = new Set(['ReduceMean', 'ReduceSum', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2', 'ReduceSumSquare']);

function permOf(node: Node): number[] | undefined {
  const a = node.opDesc.attrs.get('perm');
  return a?.kind === 'ints' ? [...a.value] : undefined;
}

function sameInts(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** `t` transposed by `perm` (out dim k = in dim perm[k]). */
function transposeTensor(t: HostTensor, perm: readonly number[]): HostTensor {
  const dims = perm.map((p) => t.dims[p] as number);
  const out = createTensor(t.type, dims);
  const inStrides = stridesOf(t.dims);
  const outStrides = stridesOf(dims);
  const n = out.data.length;
  const src = t.data as unknown as ArrayLike<unknown>;
  const dst = out.data as unknown as unknown[];
  for (let i = 0; i < n; i++) {
    let rest = i;
    let from = 0;
    for (let k = 0; k < dims.length; k++) {
      const q = Math.floor(rest / (outStrides[k] as number));
      rest -= q * (outStrides[k] as number);
      from += q * (inStrides[perm[k] as number] as number);
    }
    dst[i] = src[from];
  }
  return out;
}

function addTranspose(graph: Graph, like: Node, base: string, perm: readonly number[], desc: TensorDesc | undefined): Node {
  let name = base;
  for (let i = 1; graph.findNode(name); i++) name = `${base}_${i}`;
  return graph.addNode(
    createOpDesc({
      name,
      type: 'Transpose',
      domain: like.opDesc.domain,
      attrs: [['perm', attr.ints(perm)]],
      inputDescs: desc ? [{ ...desc }] : [],
      outputDescs: desc ? [{ ...desc }] : [],
      outputNames: [name],
    }),
    { inputs: 1, outputs: 1 },
  );
}

function constTensor(anchor: OutDataAnchor | undefined): HostTensor | undefined {
  if (anchor?.node.type !== CONST) return undefined;
  const v = anchor.node.opDesc.attrs.get(ATTR_VALUE);
  return v?.kind === 'tensor' ? v.value : undefined;
}

/**
 * X(T(a), …) → T(X(a, …)) for an elementwise X whose other inputs are constants (re-laid out to
 * broadcast the same way) or Transposes with the same permutation.
 */
function sinkThroughElementwise(graph: Graph, t: Node, perm: readonly number[]): boolean {
  const x = t.outData[0]?.peers[0]?.node as Node;
  if (x.outData.length !== 1 || x.outControl.peers.length) return false;
  const rank = perm.length;
  const inverse: number[] = [];
  perm.forEach((p, k) => {
    inverse[p] = k;
  });
  const plan: ({ kind: 'source'; anchor: OutDataAnchor; drop: Node } | { kind: 'const'; tensor: HostTensor } | { kind: 'none' })[] = [];
  for (const input of x.inData) {
    const producer = input.peer;
    if (!producer) {
      plan.push({ kind: 'none' });
      continue;
    }
    const node = producer.node;
    if (node.type === 'Transpose' && hasSingleConsumer(node) && sameInts(permOf(node) ?? [], perm) && node.inData[0]?.peer) {
      plan.push({ kind: 'source', anchor: node.inData[0].peer, drop: node });
      continue;
    }
    const c = constTensor(producer);
    // a constant broadcasts against the trailing dims: pad it to the full rank, then undo the permutation
    if (c && c.dims.length <= rank && c.data.length <= 1 << 20) {
      const padded = { ...c, dims: [...Array(rank - c.dims.length).fill(1), ...c.dims] };
      plan.push({ kind: 'const', tensor: c.dims.length === 0 ? c : transposeTensor(padded, inverse) });
      continue;
    }
    return false;
  }
  const oldDesc = x.opDesc.outputDescs[0];
  x.inData.forEach((input, i) => {
    const step = plan[i];
    if (!step || step.kind === 'none') return;
    if (step.kind === 'source') {
      graph.link(step.anchor, input);
      graph.removeNode(step.drop);
    } else if (step.tensor !== constTensor(input.peer)) {
      const node = addConst(graph, `${x.name}_in${i}_relayout`, step.tensor);
      graph.link(node.outData[0] as OutDataAnchor, input);
    }
  });
  const sunk = addTranspose(graph, t, `${x.name}_transpose`, perm, oldDesc);
  graph.replaceAllUses(x.outData[0] as OutDataAnchor, sunk.outData[0] as OutDataAnchor);
  graph.addEdge(x, 0, sunk, 0);
  if (oldDesc && oldDesc.shape.length === rank) {
    const shape = inverse.map((k) => oldDesc.shape[k] as number);
    x.opDesc.outputDescs[0] = { ...oldDesc, shape, originShape: shape };
  }
  return true;
}

/** Reduce(T(a), axes) → Reduce(a, perm[axes]), then what is left of the permutation (none if it is the identity). */
function sinkThroughReduction(graph: Graph, t: Node, perm: readonly number[]): boolean {
  const r = t.outData[0]?.peers[0]?.node as Node;
  if (r.inData[0]?.peer?.node !== t || r.outControl.peers.length) return false;
  const rank = perm.length;
  const fromInput = r.inData[1]?.peer ? constTensor(r.inData[1].peer) : undefined;
  const axesAttr = r.opDesc.attrs.get('axes');
  if (r.inData[1]?.peer && !fromInput) return false;
  const axesList = fromInput ? toNumberArray(fromInput) : axesAttr?.kind === 'ints' ? [...axesAttr.value] : undefined;
  if (!axesList?.length) return false;
  const axes = axesList.map((a) => (a < 0 ? a + rank : a));
  // a reduction along contiguous rows (a LayerNorm's or softmax's last axis) stays one: sunk, it
  // would reduce a strided axis, which neither the norm kernels nor generated row reductions read
  if (axes.includes(rank - 1) && perm[rank - 1] !== rank - 1) return false;
  const keep = r.opDesc.attrs.get('keepdims');
  const keepDims = keep?.kind !== 'int' || keep.value !== 0;
  const moved = axes.map((a) => perm[a] as number);
  let rest: number[];
  if (keepDims) rest = [...perm];
  else {
    const kept = perm.filter((_, k) => !axes.includes(k));
    const sorted = [...kept].sort((a, b) => a - b);
    rest = kept.map((p) => sorted.indexOf(p));
  }
  const source = t.inData[0]?.peer as OutDataAnchor;
  graph.link(source, r.inData[0] as Node['inData'][number]);
  graph.removeNode(t);
  if (fromInput) {
    const node = addConst(
      graph,
      `${r.name}_axes`,
      createTensor(
        'int64',
        [moved.length],
        BigInt64Array.from(moved, (a) => BigInt(a)),
      ),
    );
    graph.link(node.outData[0] as OutDataAnchor, r.inData[1] as Node['inData'][number]);
  } else r.opDesc.attrs.set('axes', attr.ints(moved));
  const oldDesc = r.opDesc.outputDescs[0];
  if (rest.every((p, i) => p === i)) return true;
  const sunk = addTranspose(graph, t, `${r.name}_transpose`, rest, oldDesc);
  graph.replaceAllUses(r.outData[0] as OutDataAnchor, sunk.outData[0] as OutDataAnchor);
  graph.addEdge(r, 0, sunk, 0);
  if (oldDesc && oldDesc.shape.length === rest.length) {
    const inverse: number[] = [];
    rest.forEach((p, k) => {
      inverse[p] = k;
    });
    const shape = inverse.map((k) => oldDesc.shape[k] as number);
    r.opDesc.outputDescs[0] = { ...oldDesc, shape, originShape: shape };
  }
  return true;
}

/**
 * Pad(T(a), pads) → T(Pad(a, pads')) with each axis's begin/end pads moved to the axis of `a` it
 * reads (TF's channel pads of residual blocks would otherwise keep the stream in NHWC). Pads from
 * a constant input or the pads attribute (opset < 11); an axes input stays unhandled.
 */
function sinkThroughPad(graph: Graph, t: Node, perm: readonly number[]): boolean {
  const pad = t.outData[0]?.peers[0]?.node as Node;
  if (pad.inData[0]?.peer?.node !== t || pad.outData.length !== 1 || pad.outControl.peers.length || pad.inData[3]?.peer) return false;
  const rank = perm.length;
  const fromInput = pad.inData[1]?.peer ? constTensor(pad.inData[1].peer) : undefined;
  const padsAttr = pad.opDesc.attrs.get('pads');
  if (pad.inData[1]?.peer && !fromInput) return false;
  const pads = fromInput ? toNumberArray(fromInput) : padsAttr?.kind === 'ints' ? [...padsAttr.value] : undefined;
  if (pads?.length !== 2 * rank) return false;
  const moved = new Array<number>(2 * rank);
  perm.forEach((p, k) => {
    moved[p] = pads[k] as number;
    moved[rank + p] = pads[rank + k] as number;
  });
  const source = t.inData[0]?.peer as OutDataAnchor;
  graph.link(source, pad.inData[0] as Node['inData'][number]);
  graph.removeNode(t);
  if (fromInput) {
    const node = addConst(
      graph,
      `${pad.name}_pads`,
      createTensor(
        'int64',
        [moved.length],
        BigInt64Array.from(moved, (v) => BigInt(v)),
      ),
    );
    graph.link(node.outData[0] as OutDataAnchor, pad.inData[1] as Node['inData'][number]);
  } else pad.opDesc.attrs.set('pads', attr.ints(moved));
  const oldDesc = pad.opDesc.outputDescs[0];
  const sunk = addTranspose(graph, t, `${pad.name}_transpose`, perm, oldDesc);
  graph.replaceAllUses(pad.outData[0] as OutDataAnchor, sunk.outData[0] as OutDataAnchor);
  graph.addEdge(pad, 0, sunk, 0);
  if (oldDesc && oldDesc.shape.length === rank) {
    const inverse: number[] = [];
    perm.forEach((p, k) => {
      inverse[p] = k;
    });
    const shape = inverse.map((k) => oldDesc.shape[k] as number);
    pad.opDesc.outputDescs[0] = { ...oldDesc, shape, originShape: shape };
  }
  return true;
}

/** `values` (one per axis of the transposed tensor, `blocks` blocks of rank) moved to the axes of the source. */
function permuteBlocks(values: readonly number[], perm: readonly number[], blocks: number): number[] {
  const rank = perm.length;
  const out = new Array<number>(values.length);
  for (let b = 0; b < blocks; b++) perm.forEach((p, k) => void (out[b * rank + p] = values[b * rank + k] as number));
  return out;
}

/**
 * Resize(T(a), roi, scales, sizes) → T(Resize(a, …)) with per-axis scales, sizes and roi (or the
 * axes attribute) moved to the axes of `a`: every axis is resized on its own, so the order does
 * not matter (keep_aspect_ratio_policy takes a min/max over the axes).
 */
function sinkThroughResize(graph: Graph, t: Node, perm: readonly number[]): boolean {
  const r = t.outData[0]?.peers[0]?.node as Node;
  if (r.inData[0]?.peer?.node !== t || r.outData.length !== 1 || r.outControl.peers.length) return false;
  const rank = perm.length;
  const axesAttr = r.opDesc.attrs.get('axes');
  if (axesAttr && axesAttr.kind !== 'ints') return false;
  const inputs: (HostTensor | undefined)[] = [];
  for (let i = 1; i < r.inData.length; i++) {
    const peer = r.inData[i]?.peer;
    const c = peer ? constTensor(peer) : undefined;
    if (peer && !c) return false;
    inputs[i] = c;
  }
  // with axes, the inputs follow the axes list and only the list moves; else they are per axis (roi: starts, ends)
  const moved = inputs.map((c, i) => {
    if (!c || c.data.length === 0 || axesAttr) return c;
    const values = toNumberArray(c);
    const blocks = i === 1 ? 2 : 1;
    if (values.length !== blocks * rank) return null;
    const permuted = permuteBlocks(values, perm, blocks);
    return c.type === 'int64'
      ? createTensor(
          'int64',
          [permuted.length],
          BigInt64Array.from(permuted, (v) => BigInt(v)),
        )
      : createTensor(c.type, [permuted.length], Float32Array.from(permuted));
  });
  if (moved.some((c) => c === null)) return false;
  if (moved.some((c) => c && c.type !== 'int64' && c.type !== 'float32')) return false;
  const axes = axesAttr?.kind === 'ints' ? axesAttr.value.map((a) => (a < 0 ? a + rank : a)) : undefined;
  if (axes?.some((a) => a < 0 || a >= rank)) return false;
  const source = t.inData[0]?.peer as OutDataAnchor;
  graph.link(source, r.inData[0] as Node['inData'][number]);
  graph.removeNode(t);
  moved.forEach((c, i) => {
    if (!c || c === inputs[i]) return;
    const node = addConst(graph, `${r.name}_in${i}_relayout`, c);
    graph.link(node.outData[0] as OutDataAnchor, r.inData[i] as Node['inData'][number]);
  });
  if (axes) r.opDesc.attrs.set('axes', attr.ints(axes.map((a) => perm[a] as number)));
  const oldDesc = r.opDesc.outputDescs[0];
  const sunk = addTranspose(graph, t, `${r.name}_transpose`, perm, oldDesc);
  graph.replaceAllUses(r.outData[0] as OutDataAnchor, sunk.outData[0] as OutDataAnchor);
  graph.addEdge(r, 0, sunk, 0);
  if (oldDesc && oldDesc.shape.length === rank) {
    const inverse: number[] = [];
    perm.forEach((p, k) => {
      inverse[p] = k;
    });
    const shape = inverse.map((k) => oldDesc.shape[k] as number);
    r.opDesc.outputDescs[0] = { ...oldDesc, shape, originShape: shape };
  }
  return true;
}

/** Whether a consumer of a Transpose is one it can sink through (or merge into). */
function sinkable(t: Node, consumer: Node): boolean {
  if (consumer.graph !== t.graph || consumer.opDesc.domain !== t.opDesc.domain) return false;
  return ELEMENTWISE.has(consumer.type) || REDUCTIONS.has(consumer.type) || ['Pad', 'Resize', 'Transpose'].includes(consumer.type);
}

/**
 * A Transpose read by several sinkable ops (x in hard-swish's x · relu6(x + 3), a residual input)
 * gets one copy per consumer, so each copy sinks on its own and the copies meet again below
 * (CSE merges copies that did not move). Graph outputs and other consumers keep it whole.
 */
export function splitTranspose(graph: Graph, t: Node): boolean {
  if (t.type !== 'Transpose' || t.outData.length !== 1 || t.outControl.peers.length || t.inControl.peers.length) return false;
  const peers = [...(t.outData[0]?.peers ?? [])];
  const source = t.inData[0]?.peer;
  const desc = t.opDesc.outputDescs[0];
  const perm = permOf(t);
  if (peers.length < 2 || !source || !perm || !desc || !isStaticShape(desc.shape)) return false;
  if (!peers.every((p) => sinkable(t, p.node))) return false;
  for (const peer of peers.slice(1)) {
    const copy = addTranspose(graph, t, `${t.name}_copy`, perm, desc);
    graph.link(source, copy.inData[0] as Node['inData'][number]);
    graph.link(copy.outData[0] as OutDataAnchor, peer);
  }
  return true;
}

/** Sinks one Transpose below its only consumer when that consumer is elementwise, a reduction or a Pad. */
export function sinkTranspose(graph: Graph, t: Node): boolean {
  if (t.type !== 'Transpose' || !hasSingleConsumer(t) || t.inControl.peers.length) return false;
  const desc = t.opDesc.outputDescs[0];
  const perm = permOf(t);
  if (!perm || !desc || desc.shape.length !== perm.length || !isStaticShape(desc.shape)) return false;
  const consumer = t.outData[0]?.peers[0]?.node;
  if (!consumer || consumer.graph !== graph) return false;
  if (ELEMENTWISE.has(consumer.type) && consumer.opDesc.domain === t.opDesc.domain) return sinkThroughElementwise(graph, t, perm);
  if (REDUCTIONS.has(consumer.type) && consumer.opDesc.domain === t.opDesc.domain) return sinkThroughReduction(graph, t, perm);
  if (consumer.type === 'Pad' && consumer.opDesc.domain === t.opDesc.domain) return sinkThroughPad(graph, t, perm);
  if (consumer.type === 'Resize' && consumer.opDesc.domain === t.opDesc.domain) return sinkThroughResize(graph, t, perm);
  return false;
}
