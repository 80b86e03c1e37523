import type { Dim, HostTensor, KernelRegistry, Node, OutDataAnchor } from '@tsge/metadef';
import {
  CONST,
  constValueOf,
  createAttrReader,
  createKernelRegistryOf,
  createTensor,
  isHostTensor,
  isStaticDim,
  isStaticShape,
  isUnknownRank,
  toNumberArray,
} from '@tsge/metadef';
import { jsKernelLibrary, runNodeOnHost } from '@tsge/kernels-js';
import { shapeRange } from '@tsge/ops';
import type { DimRef } from './dim-origin.js';

/**
 * Shape values on dynamic dims (ONNX's data propagation): what a small integer tensor computed
 * from `Shape` holds, entry by entry — a number, a dim's symbol, the tensor and axis an unknown
 * dim was read from (`DimRef`), or null where unknown — so that a
 * Reshape to `Concat(Slice(Shape(x), 0, 2), [-1])` keeps x's static and symbolic dims instead of
 * inferring every dim as -1 (a LayerNorm behind such a Reshape then has a static row length).
 */
export type ShapeValue = (number | string | DimRef | null)[];

/** Larger integer tensors are not shapes: they are not traced. */
const MAX_ENTRIES = 64;
const MAX_DEPTH = 32;

/**
 * Ops whose outputs only move elements of their data inputs (those listed; the other inputs must
 * be known): they run on index tensors, and each output index names the entry it copied.
 */
const MOVES: Readonly<Record<string, (inputCount: number) => readonly number[]>> = {
  Identity: () => [0],
  Cast: () => [0],
  Slice: () => [0],
  Gather: () => [0],
  Squeeze: () => [0],
  Unsqueeze: () => [0],
  Reshape: () => [0],
  Flatten: () => [0],
  Concat: (n) => Array.from({ length: n }, (_, i) => i),
};

const INT_TYPES = new Set(['int64', 'int32']);

let referenceKernels: KernelRegistry | undefined;
/** The reference kernels the values are computed with (the constant folder's interpreter). */
function kernels(): KernelRegistry {
  referenceKernels ??= createKernelRegistryOf([jsKernelLibrary]);
  return referenceKernels;
}

function isOnnx(node: Node): boolean {
  return node.opDesc.domain === '' || node.opDesc.domain === 'ai.onnx';
}

/** The static element count of an integer output small enough to be a shape, else undefined. */
function smallIntCount(a: OutDataAnchor): number | undefined {
  const d = a.node.opDesc.outputDescs[a.index];
  if (!d || !INT_TYPES.has(d.dtype) || !isStaticShape(d.shape)) return undefined;
  const n = d.shape.reduce((x, y) => x * y, 1);
  return n <= MAX_ENTRIES ? n : undefined;
}

function intTensor(type: string, dims: readonly number[], values: readonly number[]): HostTensor {
  return type === 'int32'
    ? createTensor('int32', dims, Int32Array.from(values))
    : createTensor('int64', dims, BigInt64Array.from(values, BigInt));
}

/** Runs a node on the reference kernels; undefined when it fails or gives no integer tensor. */
function evaluate(node: Node, inputs: (HostTensor | undefined)[]): number[] | undefined {
  try {
    const out = runNodeOnHost(node, inputs, { kernels: kernels() })[0];
    return out && isHostTensor(out as HostTensor) && INT_TYPES.has((out as HostTensor).type) ? toNumberArray(out as HostTensor) : undefined;
  } catch {
    return undefined;
  }
}

/** What `a` holds entry by entry, or undefined when it is not a small integer tensor traced from constants and shapes. */
export function shapeValue(a: OutDataAnchor, depth = 0, memo = new Map<OutDataAnchor, ShapeValue | undefined>()): ShapeValue | undefined {
  // a shape subgraph reads one value from several places: each is traced once
  if (memo.has(a)) return memo.get(a);
  const value = traced(a, depth, memo);
  memo.set(a, value);
  return value;
}

function traced(a: OutDataAnchor, depth: number, memo: Map<OutDataAnchor, ShapeValue | undefined>): ShapeValue | undefined {
  const node = a.node;
  const count = smallIntCount(a);
  if (count === undefined || depth > MAX_DEPTH) return undefined;
  if (node.type === CONST) {
    const t = constValueOf(node);
    return t && INT_TYPES.has(t.type) ? toNumberArray(t) : undefined;
  }
  if (!isOnnx(node) || node.outData.length !== 1 || node.opDesc.subgraphNames.length > 0) return undefined;
  if (node.type === 'Shape') {
    const x = node.inData[0]?.peer;
    const shape = x?.node.opDesc.outputDescs[x.index]?.shape;
    if (!shape || isUnknownRank(shape)) return undefined;
    const attrs = createAttrReader(node.opDesc.attrs);
    const [from, to] = shapeRange(shape.length, attrs.int('start', 0), attrs.has('end') ? attrs.int('end') : undefined);
    return shape.slice(from, to).map((d: Dim, i) => (isStaticDim(d) || typeof d === 'string' ? d : { anchor: x, axis: from + i }));
  }
  const values = node.inData.map((i) => (i.peer ? shapeValue(i.peer, depth + 1, memo) : undefined));
  // every input known: the node itself computes the value (an int Mul, Add, Gather, ...)
  const known = values.map((v) => (v?.every((e) => typeof e === 'number') ? (v as number[]) : undefined));
  const moved = MOVES[node.type]?.(node.inData.length) ?? [];
  const asTensor = (i: number, v: readonly number[]): HostTensor | undefined => {
    const p = node.inData[i]?.peer;
    const d = p?.node.opDesc.outputDescs[p.index];
    return p && d && isStaticShape(d.shape) && INT_TYPES.has(d.dtype) ? intTensor(d.dtype, d.shape, v) : undefined;
  };
  if (node.inData.length > 0 && node.inData.every((i, k) => !i.peer || known[k])) {
    const out = evaluate(
      node,
      node.inData.map((i, k) => (i.peer ? asTensor(k, known[k] as number[]) : undefined)),
    );
    return out?.length === count ? out : undefined;
  }
  if (moved.length === 0) return undefined;
  // moved inputs become index tensors into one table of their entries; the others must be known
  const table: ShapeValue = [];
  const inputs: (HostTensor | undefined)[] = [];
  for (const [k, i] of node.inData.entries()) {
    const v = values[k];
    if (!i.peer) inputs.push(undefined);
    else if (moved.includes(k) && v) {
      inputs.push(
        asTensor(
          k,
          v.map((_, j) => table.length + j),
        ),
      );
      table.push(...v);
    } else if (!moved.includes(k) && known[k]) inputs.push(asTensor(k, known[k] as number[]));
    else return undefined;
  }
  if (inputs.some((t, k) => node.inData[k]?.peer && !t)) return undefined;
  const picked = evaluate(node, inputs);
  if (!picked || picked.length !== count || picked.some((j) => !Number.isInteger(j) || j < 0 || j >= table.length)) return undefined;
  return picked.map((j) => table[j] as ShapeValue[number]);
}

function same(a: Dim, b: Dim): boolean {
  return a === b && (isStaticDim(a) || typeof a === 'string');
}

/**
 * The dim a Reshape infers for its -1 entry: the input's elements over the other output dims,
 * after cancelling equal dims (static or the same symbol); -1 when that is not one known dim.
 */
function inferredDim(input: readonly Dim[], others: readonly Dim[]): Dim {
  const rest = [...input];
  const unmatched: Dim[] = [];
  for (const d of others) {
    const j = rest.findIndex((r) => same(r, d));
    if (j >= 0) rest.splice(j, 1);
    else unmatched.push(d);
  }
  if (!unmatched.every(isStaticDim)) return -1;
  const divisor = unmatched.reduce<number>((x, y) => x * (y as number), 1);
  const dynamic = rest.filter((d) => !isStaticDim(d));
  const product = rest.filter(isStaticDim).reduce<number>((x, y) => x * y, 1);
  if (dynamic.length === 0) return divisor > 0 && product % divisor === 0 ? product / divisor : -1;
  // one dynamic dim left over and the static ones cancel: the output dim is that one
  return dynamic.length === 1 && product === divisor ? (dynamic[0] as Dim) : -1;
}

/**
 * The dims of an ONNX Reshape's output as far as the shape value of its target tells them, or
 * undefined when its target is not traced. Entries: a number (0 copies the input's dim unless
 * allowzero), a symbol (kept when allowzero, or when the input has the same symbol there, since a
 * symbol whose value is 0 would copy the input's dim), -1 to infer, unknown (null) as -1.
 */
export function reshapeDims(node: Node): Dim[] | undefined {
  if (node.type !== 'Reshape' || !isOnnx(node)) return undefined;
  const x = node.inData[0]?.peer;
  const target = node.inData[1]?.peer;
  const input = x?.node.opDesc.outputDescs[x.index]?.shape;
  const value = target ? shapeValue(target) : undefined;
  if (!input || isUnknownRank(input) || !value) return undefined;
  const allowZero = createAttrReader(node.opDesc.attrs).int('allowzero', 0) !== 0;
  const out: Dim[] = value.map((e, i): Dim => {
    if (e === null || typeof e === 'object') return -1;
    if (typeof e === 'string') return allowZero || input[i] === e ? e : -1;
    if (e === 0 && !allowZero) return i < input.length ? (input[i] as Dim) : -1;
    return e >= 0 ? e : -1;
  });
  const inferAt = value.indexOf(-1);
  // an unknown entry might be the -1 at run time: nothing is inferred then
  if (inferAt >= 0 && value.lastIndexOf(-1) === inferAt && !value.some((e) => e === null || typeof e === 'object'))
    out[inferAt] = inferredDim(
      input,
      out.filter((_, i) => i !== inferAt),
    );
  return out;
}
