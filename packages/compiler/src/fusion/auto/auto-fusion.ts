import type { AttrReader, Graph, KOpCode, KernelInstruction, Node, OpRegistry, OutDataAnchor, Shape, TensorDesc } from '@tsge/metadef';
import {
  CONST,
  KOp,
  KernelDtype,
  KernelKind,
  TSGE_DOMAIN,
  attr,
  constValueOf,
  createAttrReader,
  createOpDesc,
  createTensorDesc,
  encodeKernelDescription,
  RUNTIME_DIM,
  isStaticDim,
  isStaticShape,
  broadcastStrides,
  runStride,
  shapeSize,
} from '@tsge/metadef';
import { FUSED_CONV, FUSED_ELEMENTWISE, FUSED_MATMUL } from '@tsge/ops';
import { uniqueName } from '../../graph-utils.js';
import { definePass } from '../../pass-manager.js';
import { batchNormsAsAffine } from './batch-norm.js';
import { type ExpressionBuilder, LOWERINGS } from './lower-ops.js';
import { isDynamicFloat, runtimeLayout } from './runtime-sized.js';

/** Groups smaller than this stay single ops: their hand-written kernels are as fast. */
const MIN_GROUP = 2;

function staticFloatDesc(desc: TensorDesc | undefined): desc is TensorDesc & { shape: number[] } {
  return desc !== undefined && desc.dtype === 'float32' && isStaticShape(desc.shape) && (shapeSize(desc.shape) ?? 0) > 0;
}

const descOfAnchor = (a: OutDataAnchor | undefined): TensorDesc | undefined => a?.node.opDesc.outputDescs[a.index];

/** Static float32, or float32 of known rank with dynamic dims (those only end up in run-time-sized epilogues). */
const floatDesc = (desc: TensorDesc | undefined): desc is TensorDesc => staticFloatDesc(desc) || isDynamicFloat(desc);

/** The value of a one-element float32 constant feeding an op, else undefined. */
function scalarOf(a: OutDataAnchor | undefined): number | undefined {
  if (!a || a.node.type !== CONST) return undefined;
  const t = constValueOf(a.node);
  return t?.type === 'float32' && t.data.length === 1 ? (t.data[0] as number) : undefined;
}

/** Reductions that join a group when they reduce the last axis only (keeping it, as size 1). */
const ROW_REDUCTIONS: Readonly<Record<string, KOpCode>> = { ReduceSum: KOp.rowSum, ReduceMean: KOp.rowSum, ReduceMax: KOp.rowMax };

/** Whether a node is an ONNX ReduceSum/Mean/Max over its static float32 input's last axis with keepdims (TVM's commutative reduction). */
function rowReduction(node: Node): boolean {
  if (ROW_REDUCTIONS[node.type] === undefined || !isOnnx(node)) return false;
  const x = descOfAnchor(node.inData[0]?.peer);
  const y = node.opDesc.outputDescs[0];
  if (!floatDesc(x) || !floatDesc(y) || x.shape.length === 0 || y.shape.length !== x.shape.length) return false;
  const last = x.shape.length - 1;
  const n = x.shape[last] as Shape[number];
  // the row is static (a ReduceMean divides by its length); the leading dims may be dynamic, and
  // axes of size 1 reduced along with the last one change nothing
  return isStaticDim(n) && n > 1 && y.shape.every((d, i) => (i === last ? d === 1 : d === x.shape[i]));
}

/** A dry run of an op's lowering: whether it can be expressed with these inputs and attributes. */
function lowerable(node: Node, attrs: AttrReader): boolean {
  const lowering = LOWERINGS[node.type];
  if (!lowering) return false;
  let next = 0;
  const dry: ExpressionBuilder = { constant: () => next++, emit: () => next++ };
  const regs = node.inData.map((a) => (a.peer ? next++ : undefined));
  return lowering(dry, { regs, scalars: node.inData.map((a) => scalarOf(a.peer)), attrs }) !== undefined;
}

/**
 * Whether a node may join a generated kernel: an ONNX op whose definition says elementwise or
 * broadcast (TVM's injective class below the reduction), that this lowers, over float32 tensors
 * of known rank (dynamic dims only end up in an epilogue), with one output and no control edges; or
 * a reduction along the last axis (`rowReduction`), which makes the group a row-reduction kernel.
 */
function fusable(node: Node, ops: OpRegistry): boolean {
  if (node.outData.length === 1 && node.inControl.peers.length === 0 && node.outControl.peers.length === 0 && rowReduction(node))
    return true;
  const def = ops.get(node.type, node.opDesc.domain);
  if (def?.pattern !== 'elementwise' && def?.pattern !== 'broadcast') return false;
  if (node.outData.length !== 1 || node.inControl.peers.length > 0 || node.outControl.peers.length > 0) return false;
  if (!floatDesc(node.opDesc.outputDescs[0])) return false;
  if (!node.inData.every((a) => !a.peer || floatDesc(descOfAnchor(a.peer)))) return false;
  return lowerable(node, createAttrReader(node.opDesc.attrs));
}

/**
 * Grows a group backwards from its sink: a fusable producer joins when every consumer of its
 * output is already in the group, so the group has one output (the sink's) and cannot form a
 * cycle with the rest of the graph (TVM's rule that a node fuses into its post-dominator).
 */
function growGroup(sink: Node, candidate: (n: Node) => boolean): Node[] {
  const group = new Set<Node>([sink]);
  const queue = [sink];
  while (queue.length > 0) {
    const node = queue.shift() as Node;
    for (const a of node.inData) {
      const p = a.peer?.node;
      if (!p || group.has(p) || !candidate(p)) continue;
      if (!(p.outData[0]?.peers ?? []).every((c) => group.has(c.node))) continue;
      group.add(p);
      queue.push(p);
    }
  }
  return [...group];
}

/** Merges adjacent dims that every input walks contiguously together (and drops size-1 dims). */
function collapse(shape: readonly number[], strides: readonly number[][]): { shape: number[]; strides: number[][] } {
  const keep = shape.map((d, i) => d !== 1 || i === shape.length - 1);
  const s: number[] = [];
  const st: number[][] = strides.map(() => []);
  shape.forEach((d, i) => {
    if (!keep[i]) return;
    const j = s.length - 1;
    if (j >= 0 && strides.every((row, r) => (st[r] as number[])[j] === (row[i] as number) * d)) {
      s[j] = (s[j] as number) * d;
      strides.forEach((row, r) => {
        (st[r] as number[])[j] = row[i] as number;
      });
    } else {
      s.push(d);
      strides.forEach((row, r) => {
        (st[r] as number[]).push(row[i] as number);
      });
    }
  });
  return { shape: s, strides: st };
}

/** A row-reduction kernel's layout: the leading dims collapsed, the reduced last dim kept as it is. */
function rowCollapse(shape: readonly number[], strides: readonly number[][]): Layout {
  const last = shape.length - 1;
  const lead =
    last > 0
      ? collapse(
          shape.slice(0, last),
          strides.map((row) => row.slice(0, last)),
        )
      : { shape: [], strides: strides.map(() => []) };
  return {
    shape: [...lead.shape, shape[last] as number],
    strides: lead.strides.map((row, i) => [...row, (strides[i] as number[])[last] as number]),
  };
}

type Layout = { shape: number[]; strides: number[][] };

/**
 * An epilogue's layout: the output as [N, C, spatial], each input one stride per dim. Undefined
 * when an input's spatial elements are not one run (contiguous, or one repeated value): a conv
 * tile hands the epilogue runs of positions of one channel.
 */
function channelLayout(shape: readonly number[], strides: readonly number[][]): Layout | undefined {
  if (shape.length < 3) return undefined;
  const out: number[][] = [];
  for (const row of strides) {
    const run = runStride(shape, row, 2, shape.length);
    if (run !== 0 && run !== 1) return undefined;
    out.push([row[0] as number, row[1] as number, run]);
  }
  return { shape: [shape[0] as number, shape[1] as number, shape.slice(2).reduce((x, y) => x * y, 1)], strides: out };
}

/**
 * A MatMul epilogue's layout: the output as [1, rows, N] (a MatMul tile's block is rows × columns).
 * Undefined when an input's leading dims are neither one run over the rows nor all broadcast, or
 * its columns neither contiguous nor one repeated value.
 */
function rowLayout(shape: readonly number[], strides: readonly number[][]): Layout | undefined {
  if (shape.length < 2) return undefined;
  const last = shape.length - 1;
  const out: number[][] = [];
  for (const row of strides) {
    const column = runStride(shape, row, last, shape.length);
    const rows = runStride(shape, row, 0, last);
    if ((column !== 0 && column !== 1) || rows === undefined) return undefined;
    out.push([0, rows, column]);
  }
  return { shape: [1, shape.slice(0, -1).reduce((x, y) => x * y, 1), shape[last] as number], strides: out };
}

/** An activation of a fused op (attribute `activation`, `activation_params`) as instructions on register `x`. */
function lowerActivation(b: ExpressionBuilder, x: number, activation: string, params: readonly number[]): number | undefined {
  const p = (i: number, fallback: number) => params[i] ?? fallback;
  const attrs = (entries: [string, number][]) => createAttrReader(new Map(entries.map(([k, v]) => [k, attr.float(v)])));
  const lower = (type: string, reader = attrs([])) => LOWERINGS[type]?.(b, { regs: [x], scalars: [undefined], attrs: reader });
  switch (activation) {
    case 'None':
    case '':
      return x;
    case 'Relu':
    case 'Sigmoid':
    case 'Tanh':
    case 'HardSwish':
    case 'Gelu':
      return lower(activation);
    case 'LeakyRelu':
      return lower(activation, attrs([['alpha', p(0, 0.01)]]));
    case 'HardSigmoid':
      return lower(
        activation,
        attrs([
          ['alpha', p(0, 0.2)],
          ['beta', p(1, 0.5)],
        ]),
      );
    case 'Clip': {
      let y = x;
      if (Number.isFinite(p(0, Number.NaN))) y = b.emit(KOp.clampLo, y, b.constant(p(0, 0)));
      if (Number.isFinite(p(1, Number.NaN))) y = b.emit(KOp.clampHi, y, b.constant(p(1, 0)));
      return y;
    }
    default:
      return undefined;
  }
}

interface GroupKernel {
  readonly inputs: OutDataAnchor[];
  readonly words: Int32Array;
  /** Transposes the kernel reads through (their inputs are its inputs, strided): removed with the group. */
  readonly heads: Node[];
}

/**
 * A Transpose at the head of a group, read as a strided view of its input instead of copied (TVM's
 * injective class fused into its consumer): static float32, its last axis kept (the SIMD loop reads
 * each row contiguously), every reader in the group. The permutation, else undefined.
 */
function transposeHead(a: OutDataAnchor, group: ReadonlySet<Node>): number[] | undefined {
  const node = a.node;
  if (node.type !== 'Transpose' || !isOnnx(node) || node.inControl.peers.length > 0 || node.outControl.peers.length > 0) return undefined;
  const x = descOfAnchor(node.inData[0]?.peer);
  if (!staticFloatDesc(x) || !staticFloatDesc(descOfAnchor(a)) || !a.peers.every((c) => group.has(c.node))) return undefined;
  const rank = x.shape.length;
  const perm = [
    ...createAttrReader(node.opDesc.attrs).ints(
      'perm',
      Array.from({ length: rank }, (_, i) => rank - 1 - i),
    ),
  ];
  const valid = perm.length === rank && [...perm].sort((p, q) => p - q).every((v, i) => v === i);
  return valid && rank > 1 && perm[rank - 1] === rank - 1 ? perm : undefined;
}

/** Right-aligned strides of the view Transpose(x, perm) read at each index of `out` (0 where broadcast). */
function transposedStrides(x: readonly number[], perm: readonly number[], out: readonly number[]): number[] {
  const contiguous = new Array<number>(x.length).fill(1);
  for (let i = x.length - 2; i >= 0; i--) contiguous[i] = (contiguous[i + 1] as number) * (x[i + 1] as number);
  const strides = new Array<number>(out.length).fill(0);
  perm.forEach((p, i) => {
    const o = out.length - perm.length + i;
    strides[o] = x[p] === 1 && (out[o] as number) !== 1 ? 0 : (contiguous[p] as number);
  });
  return strides;
}

/**
 * Where a group's description starts from a Conv's output instead (an epilogue): that output is
 * input 0, seeded with the Conv's activation lowered, and the description keeps the output's
 * [N, C, spatial] layout so a conv tile can run it over its own block.
 */
export interface EpilogueHost {
  readonly anchor: OutDataAnchor;
  /** Conv: the output as [N, C, spatial]; MatMul: as [1, rows, N]. */
  readonly kind: 'conv' | 'matmul';
  /** A FusedMatMul's bias over the last axis, which the epilogue adds first (input 1). */
  readonly bias?: OutDataAnchor;
  /** The host's activation (attribute `activation`, `activation_params`), applied next. */
  readonly activation: string;
  readonly params: readonly number[];
}

/** The kernel description of a group (members in topological order, the sink last). */
export function describeGroup(members: readonly Node[], sink: Node | undefined, host?: EpilogueHost): GroupKernel | undefined {
  const outShape = ((sink ?? host?.anchor.node)?.opDesc.outputDescs[sink ? 0 : (host?.anchor.index ?? 0)]?.shape ?? []) as number[];
  const inSet = new Set(members);
  const inputs: OutDataAnchor[] = [];
  // inputs read through a Transpose: their permutation
  const views = new Map<number, number[]>();
  const heads: Node[] = [];
  const constants: number[] = [];
  // keyed by the value's text so -0 stays apart from 0
  const constantRegs = new Map<string, number>();
  const instructions: KernelInstruction[] = [];
  // registers are numbered once inputs and constants are known: collect symbolic operands first
  type Operand = { kind: 'input' | 'constant' | 'temp'; index: number };
  const pending: { op: KOpCode; a: Operand; b: Operand }[] = [];
  const valueAt = new Map<OutDataAnchor, Operand>();
  const constantIndex = (value: number): number => {
    const key = Object.is(value, -0) ? '-0' : String(Math.fround(value));
    let c = constantRegs.get(key);
    if (c === undefined) {
      c = constants.push(value) - 1;
      constantRegs.set(key, c);
    }
    return c;
  };
  const regOfAnchor = (a: OutDataAnchor): Operand => {
    const known = valueAt.get(a);
    if (known) return known;
    const scalar = scalarOf(a);
    let operand: Operand;
    if (scalar !== undefined) {
      const c = constantIndex(scalar);
      operand = { kind: 'constant', index: c };
    } else {
      const perm = host ? undefined : transposeHead(a, inSet);
      const source = perm ? (a.node.inData[0]?.peer as OutDataAnchor) : a;
      if (perm) {
        views.set(inputs.length, perm);
        heads.push(a.node);
      }
      operand = { kind: 'input', index: inputs.push(source) - 1 };
    }
    valueAt.set(a, operand);
    return operand;
  };
  const operands: Operand[] = [];
  const builder: ExpressionBuilder = {
    constant(value) {
      const c = constantIndex(value);
      operands.push({ kind: 'constant', index: c });
      return operands.length - 1;
    },
    emit(op, a, b) {
      pending.push({ op, a: operands[a] as Operand, b: b === undefined ? { kind: 'constant', index: -1 } : (operands[b] as Operand) });
      operands.push({ kind: 'temp', index: pending.length - 1 });
      return operands.length - 1;
    },
  };
  if (host) {
    const seed: Operand = { kind: 'input', index: inputs.push(host.anchor) - 1 };
    operands.push(seed);
    let value = operands.length - 1;
    if (host.bias) {
      operands.push({ kind: 'input', index: inputs.push(host.bias) - 1 });
      value = builder.emit(KOp.add, value, operands.length - 1);
    }
    const activated = lowerActivation(builder, value, host.activation, host.params);
    if (activated === undefined) return undefined;
    valueAt.set(host.anchor, operands[activated] as Operand);
  }
  const reduces = members.some(rowReduction);
  // an epilogue runs over blocks of its host's output, never whole rows; a row-reduction kernel's
  // rows are the output's last dim, which each reduction's input must span
  const rowLength = outShape[outShape.length - 1];
  if (reduces && (host || rowLength === undefined || !isStaticDim(rowLength))) return undefined;
  for (const node of members) {
    if (rowReduction(node)) {
      const x = node.inData[0]?.peer as OutDataAnchor;
      if ((descOfAnchor(x)?.shape.at(-1) ?? 0) !== rowLength) return undefined;
      operands.push(inSet.has(x.node) ? (valueAt.get(x) as Operand) : regOfAnchor(x));
      const total = builder.emit(ROW_REDUCTIONS[node.type] as KOpCode, operands.length - 1);
      const result = node.type === 'ReduceMean' ? builder.emit(KOp.div, total, builder.constant(rowLength as number)) : total;
      valueAt.set(node.outData[0] as OutDataAnchor, operands[result] as Operand);
      continue;
    }
    const regs = node.inData.map((a) => {
      if (!a.peer) return undefined;
      const operand = inSet.has(a.peer.node) ? (valueAt.get(a.peer) as Operand) : regOfAnchor(a.peer);
      operands.push(operand);
      return operands.length - 1;
    });
    const lowering = LOWERINGS[node.type];
    const result = lowering?.(builder, {
      regs,
      scalars: node.inData.map((a) => scalarOf(a.peer)),
      attrs: createAttrReader(node.opDesc.attrs),
    });
    if (result === undefined) return undefined;
    valueAt.set(node.outData[0] as OutDataAnchor, operands[result] as Operand);
  }
  if (inputs.length === 0) return undefined;
  const first = inputs.length + constants.length;
  const reg = (o: Operand): number =>
    o.kind === 'input' ? o.index : o.kind === 'constant' ? (o.index < 0 ? 0 : inputs.length + o.index) : first + o.index;
  for (const p of pending) instructions.push({ op: p.op, a: reg(p.a), b: p.b.index < 0 && p.b.kind === 'constant' ? 0 : reg(p.b) });
  const out = valueAt.get(sink ? (sink.outData[0] as OutDataAnchor) : (host as EpilogueHost).anchor) as Operand;
  let output = reg(out);
  // a sink that is a plain copy of an input still needs an instruction to store
  if (out.kind !== 'temp') {
    instructions.push({ op: KOp.copy, a: output, b: 0 });
    output = first + instructions.length - 1;
  }
  const inputShapes = inputs.map((a) => descOfAnchor(a)?.shape ?? []);
  if (!isStaticShape(outShape) || !inputShapes.every(isStaticShape)) {
    // dynamic dims: an epilogue over its host's layout, a standalone group (row reductions too:
    // their rows are static) one stride per output dim; a transposed read is a static view
    const layout = views.size === 0 && runtimeLayout(host ? host.kind : 'elementwise', outShape, inputShapes);
    if (!layout) return undefined;
    const words = encodeKernelDescription({
      kind: reduces ? KernelKind.rowReduction : KernelKind.elementwise,
      dtype: KernelDtype.float32,
      shape: layout.shape,
      inputs: layout.inputs,
      constants,
      instructions,
      output,
      vectorWidth: 4,
    });
    return { inputs, words, heads };
  }
  const strides = inputs.map((a, i) => {
    const dims = (descOfAnchor(a)?.shape ?? []) as number[];
    const perm = views.get(i);
    return perm ? transposedStrides(dims, perm, outShape) : broadcastStrides(dims, outShape);
  });
  if (!strides.every((row) => row !== undefined)) return undefined;
  const collapsed = host
    ? host.kind === 'conv'
      ? channelLayout(outShape, strides)
      : rowLayout(outShape, strides)
    : reduces
      ? rowCollapse(outShape, strides)
      : collapse(outShape.length === 0 ? [1] : outShape, outShape.length === 0 ? strides.map(() => [0]) : strides);
  if (!collapsed) return undefined;
  const words = encodeKernelDescription({
    kind: reduces ? KernelKind.rowReduction : KernelKind.elementwise,
    dtype: KernelDtype.float32,
    shape: collapsed.shape,
    inputs: inputs.map((a, i) => ({ size: shapeSize(descOfAnchor(a)?.shape ?? []) ?? 1, strides: collapsed.strides[i] as number[] })),
    constants,
    instructions,
    output,
    vectorWidth: 4,
  });
  return { inputs, words, heads };
}

/** The group's members in the graph's topological order. */
function ordered(members: readonly Node[], order: ReadonlyMap<Node, number>): Node[] {
  return [...members].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}

/**
 * Automatic fusion (O3): chains of elementwise and broadcast ops become one `tsge::FusedElementwise`
 * node whose kernel description the executor turns into a WebAssembly SIMD kernel (or interprets,
 * on the js device). A chain that reads a Conv's output (its only reader) becomes that Conv's
 * generated epilogue instead (TVM's out-elemwise-fusable rule): a `tsge::FusedConv` whose tiles run
 * the description over each output block while it is in cache; a FusedConv's own activation
 * becomes a description too. Float32 only; on dynamic dims the descriptions are run-time sized
 * (`runtime-sized.ts`), except row reductions and transposed reads, which stay static.
 */
export const autoFusionPass = definePass({
  name: 'auto-fusion',
  level: 3,
  run(graph: Graph, ctx) {
    const affines = batchNormsAsAffine(graph);
    const isCandidate = new Map<Node, boolean>();
    const candidate = (n: Node): boolean => {
      let v = isCandidate.get(n);
      if (v === undefined) {
        v = fusable(n, ctx.ops);
        isCandidate.set(n, v);
      }
      return v;
    };
    const sorted = sortTopologically(graph);
    const position = new Map(sorted.map((n, i) => [n, i]));
    const assigned = new Set<Node>();
    let fused = 0;
    for (const sink of [...sorted].reverse()) {
      // a reduction's output is one value per row: it joins the group of an elementwise sink
      if (assigned.has(sink) || !candidate(sink) || rowReduction(sink)) continue;
      const group = growGroup(sink, (n) => !assigned.has(n) && candidate(n));
      const members = ordered(group, position);
      const host = epilogueHostOf(members, sink);
      const epilogue = host && describeGroup(members, sink, host);
      if (host && epilogue) {
        for (const m of members) assigned.add(m);
        absorbIntoHost(graph, members, sink, host, epilogue);
        fused++;
        continue;
      }
      if (group.length < MIN_GROUP) continue;
      const kernel = describeGroup(members, sink);
      if (!kernel) continue;
      for (const m of members) assigned.add(m);
      replaceGroup(graph, members, sink, kernel);
      fused++;
    }
    const activations = activationEpilogues(graph);
    if (fused) ctx.count('auto-fusion', fused);
    if (activations) ctx.count('auto-fusion activation epilogues', activations);
    if (affines) ctx.count('auto-fusion batch norms as affine', affines);
    return { changed: fused + activations + affines > 0 };
  },
});

function sortTopologically(graph: Graph): Node[] {
  const seen = new Set<Node>();
  const out: Node[] = [];
  const visit = (root: Node) => {
    const stack: [Node, number][] = [[root, 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as [Node, number];
      const [node, i] = top;
      if (i === 0 && seen.has(node)) {
        stack.pop();
        continue;
      }
      seen.add(node);
      const inputs = node.inData;
      if (i < inputs.length) {
        top[1] = i + 1;
        const p = inputs[i]?.peer?.node;
        if (p && !seen.has(p)) stack.push([p, 0]);
        continue;
      }
      stack.pop();
      out.push(node);
    }
  };
  for (const n of graph.nodes) visit(n);
  return out;
}

function replaceGroup(graph: Graph, members: readonly Node[], sink: Node, kernel: GroupKernel): void {
  const desc = sink.opDesc.outputDescs[0] as TensorDesc;
  const node = graph.addNode(
    createOpDesc({
      name: uniqueName(graph, `${sink.name}_fused`),
      type: FUSED_ELEMENTWISE,
      domain: TSGE_DOMAIN,
      attrs: [
        // a dynamic dim is RUNTIME_DIM: the kernel takes it from the inputs at each run
        ['shape', attr.ints(desc.shape.map((d) => (isStaticDim(d) ? d : RUNTIME_DIM)))],
        ['description', attr.ints(Array.from(kernel.words))],
        ['fused_nodes', attr.strings([...kernel.heads, ...members].map((m) => m.name))],
      ],
      outputDescs: [desc],
      outputNames: [sink.opDesc.outputNames[0] ?? sink.name],
    }),
    { inputs: kernel.inputs.length, outputs: 1 },
  );
  kernel.inputs.forEach((a, i) => {
    graph.link(a, node.inData[i] as Node['inData'][number]);
  });
  graph.replaceAllUses(sink.outData[0] as OutDataAnchor, node.outData[0] as OutDataAnchor);
  for (const m of [...members, ...kernel.heads]) graph.removeNode(m);
}

/** Activations a FusedConv hands to a generated epilogue on its own: the ones the SIMD emitter covers. */
const EPILOGUE_ACTIVATIONS = new Set(['Relu', 'Clip', 'LeakyRelu', 'HardSigmoid', 'HardSwish', 'Sigmoid']);

function isOnnx(node: Node): boolean {
  return node.opDesc.domain === '' || node.opDesc.domain === 'ai.onnx';
}

/**
 * Whether a node can take a generated epilogue: a Conv or FusedConv, or a MatMul or FusedMatMul
 * whose B is a constant matrix (the CPU stores it packed, and PackedMatMul's tiles run the
 * epilogue; other MatMul kernels would run it on the interpreter), without one yet.
 */
function hostKind(node: Node): EpilogueHost['kind'] | undefined {
  if (node.inControl.peers.length > 0 || node.outControl.peers.length > 0 || node.outData.length !== 1) return undefined;
  if (node.inData.length > 3 || node.opDesc.attrs.has('description')) return undefined;
  if ((node.type === 'Conv' && isOnnx(node)) || (node.type === FUSED_CONV && node.opDesc.domain === TSGE_DOMAIN)) return 'conv';
  const matmul =
    (node.type === 'MatMul' && isOnnx(node) && node.inData.length === 2) ||
    (node.type === FUSED_MATMUL && node.opDesc.domain === TSGE_DOMAIN);
  if (!matmul) return undefined;
  const b = node.inData[1]?.peer;
  const value = b?.node.type === CONST ? constValueOf(b.node) : undefined;
  return value?.type === 'float32' && value.dims.length === 2 ? 'matmul' : undefined;
}

function activationOf(node: Node): { activation: string; params: number[] } {
  const attrs = createAttrReader(node.opDesc.attrs);
  return { activation: attrs.string('activation', 'None'), params: [...attrs.floats('activation_params', [])] };
}

/** The host of an epilogue starting at `anchor` (its output): kind, a MatMul's bias, the activation. */
function hostAt(anchor: OutDataAnchor): EpilogueHost | undefined {
  const node = anchor.node;
  const kind = hostKind(node);
  const desc = descOfAnchor(anchor);
  if (!kind || !floatDesc(desc) || desc.shape.length < (kind === 'conv' ? 3 : 2)) return undefined;
  const bias = kind === 'matmul' ? node.inData[2]?.peer : undefined;
  if (bias && !staticFloatDesc(descOfAnchor(bias))) return undefined;
  return { anchor, kind, ...(bias ? { bias } : {}), ...activationOf(node) };
}

/** The Conv or MatMul a group can be the epilogue of: it feeds the group only, with the sink's exact static shape. */
function epilogueHostOf(members: readonly Node[], sink: Node): EpilogueHost | undefined {
  const inGroup = new Set(members);
  const shape = sink.opDesc.outputDescs[0]?.shape;
  for (const m of members)
    for (const a of m.inData) {
      const p = a.peer;
      if (!p || inGroup.has(p.node)) continue;
      const host = hostAt(p);
      if (!host || !shape || descOfAnchor(p)?.shape.join(',') !== shape.join(',')) continue;
      if (!p.peers.every((c) => inGroup.has(c.node))) continue;
      return host;
    }
  return undefined;
}

/**
 * Rebuilds the host as a FusedConv or FusedMatMul whose epilogue is the group (its bias and
 * activation first), reading the epilogue's other inputs from index 3.
 */
function absorbIntoHost(graph: Graph, members: readonly Node[], sink: Node | undefined, host: EpilogueHost, kernel: GroupKernel): Node {
  const base = host.anchor.node;
  const out = sink ?? base;
  const desc = out.opDesc.outputDescs[sink ? 0 : host.anchor.index] as TensorDesc;
  const attrs = new Map(base.opDesc.attrs);
  attrs.set('activation', attr.string('None'));
  attrs.set('activation_params', attr.floats([]));
  attrs.set('description', attr.ints(Array.from(kernel.words)));
  const before = base.opDesc.attrs.get('fused_nodes');
  if (members.length > 0)
    attrs.set('fused_nodes', attr.strings([...(before?.kind === 'strings' ? before.value : [base.name]), ...members.map((m) => m.name)]));
  const extra = kernel.inputs.slice(1);
  // a MatMul's bias moved into the epilogue: slot 2 stays empty
  const own = host.kind === 'conv' ? 3 : 2;
  const slots = extra.length > 0 ? 3 + extra.length : Math.min(base.inData.length, own);
  // every slot has a desc (an omitted one too, as the parsers give omitted optional inputs)
  const producers = [...Array.from({ length: 3 }, (_, i) => (i < own ? base.inData[i]?.peer : undefined)), ...extra].slice(0, slots);
  const inputDescs = producers.map((a) => {
    const d = a ? descOfAnchor(a) : undefined;
    return d ? { ...d, shape: [...d.shape], originShape: [...d.originShape] } : createTensorDesc('float32', []);
  });
  const node = graph.addNode(
    createOpDesc({
      name: uniqueName(graph, `${base.name}_epilogue`),
      type: host.kind === 'conv' ? FUSED_CONV : FUSED_MATMUL,
      domain: TSGE_DOMAIN,
      attrs: [...attrs],
      inputDescs,
      outputDescs: [desc],
      outputNames: [out.opDesc.outputNames[sink ? 0 : host.anchor.index] ?? out.name],
    }),
    { inputs: slots, outputs: 1 },
  );
  producers.forEach((a, i) => {
    if (a) graph.link(a, node.inData[i] as Node['inData'][number]);
  });
  graph.replaceAllUses((sink ? sink.outData[0] : host.anchor) as OutDataAnchor, node.outData[0] as OutDataAnchor);
  for (const m of members) graph.removeNode(m);
  graph.removeNode(base);
  return node;
}

/**
 * FusedConvs left with an activation of their own, and FusedMatMuls with a bias or activation: these
 * become their generated epilogue (a Conv's clamp still runs in its GEMM store).
 */
function activationEpilogues(graph: Graph): number {
  let count = 0;
  for (const node of [...graph.nodes]) {
    if (node.type !== FUSED_CONV && node.type !== FUSED_MATMUL) continue;
    const host = hostAt(node.outData[0] as OutDataAnchor);
    if (!host || !(EPILOGUE_ACTIVATIONS.has(host.activation) || (host.bias && ['None', ''].includes(host.activation)))) continue;
    const kernel = describeGroup([], undefined, host);
    if (!kernel) continue;
    absorbIntoHost(graph, [], undefined, host, kernel);
    count++;
  }
  return count;
}
