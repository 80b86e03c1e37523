// Inference and argument helpers shared by the tensor, controlflow and ml groups.
import { type DataType, type Dim, type InferenceContextV1, ALL_TENSOR_TYPES, InferenceError, toNumberArray } from '@tsge/metadef';

/** A normalised axis in [0, rank); throws InferenceError naming the op when out of range. */
export function normalizeAxis(axis: number, rank: number, where: string): number {
  if (!Number.isInteger(axis) || axis < -rank || axis >= rank) {
    throw new InferenceError(`${where}: axis ${axis} is out of range for rank ${rank}`);
  }
  return axis < 0 ? axis + rank : axis;
}

/** Like normalizeAxis but for ops whose axis may also equal rank (Unsqueeze, Flatten). */
export function normalizeAxisInclusive(axis: number, rank: number, where: string): number {
  if (!Number.isInteger(axis) || axis < -rank - 1 || axis > rank) {
    throw new InferenceError(`${where}: axis ${axis} is out of range for rank ${rank}`);
  }
  return axis < 0 ? axis + rank + 1 : axis;
}

/** "Op node" for messages. */
export function whereOf(ctx: { readonly opType: string; readonly nodeName: string }): string {
  return `${ctx.opType} ${ctx.nodeName}`;
}

/** The content of a shape-like input as numbers, when known at inference time. */
export function knownInts(ctx: InferenceContextV1, index: number): number[] | undefined {
  const t = ctx.inputValue(index);
  return t ? toNumberArray(t) : undefined;
}

/** n unknown dims. */
export function unknownDims(rank: number): Dim[] {
  // a rank read from a file (a shape input's declared length) is bounded before an array is built
  if (!Number.isInteger(rank) || rank < 0 || rank > MAX_TENSOR_RANK)
    throw new InferenceError(`a tensor of rank ${rank} is refused (the limit is ${MAX_TENSOR_RANK})`);
  return new Array<Dim>(rank).fill(-1);
}

/** The highest rank shape inference builds (TensorFlow's is 254; real models stay far below). */
export const MAX_TENSOR_RANK = 254;

/** Product of dims when all are known numbers, else -1. */
export function dimProduct(dims: readonly Dim[]): Dim {
  let n = 1;
  for (const d of dims) {
    if (typeof d !== 'number' || d < 0) return -1;
    n *= d;
  }
  return n;
}

/**
 * Inputs of a control-flow node without the outer-scope captures parsers append (attr
 * `_implicit_inputs`). Inference sees every input; kernels are given only the formal ones.
 */
export function formalInputCount(ctx: InferenceContextV1): number {
  const implicit = ctx.attrs.has('_implicit_inputs') ? ctx.attrs.int('_implicit_inputs', 0) : 0;
  return Math.max(0, ctx.inputCount - implicit);
}

/** The opset of the node's domain: the parser's `_opset` attribute, else what the host passed. */
export function nodeOpset(ctx: { readonly attrs: InferenceContextV1['attrs']; readonly opsetVersion: number }): number {
  return ctx.attrs.has('_opset') ? ctx.attrs.int('_opset', 0) : ctx.opsetVersion;
}

/**
 * Every dtype the opset-25 data-movement ops allow (Reshape, Transpose, Pad, Identity, If, ...):
 * the common types plus the narrow float8/float4/int4 kinds, stored one element per byte, which
 * these kernels move without interpreting.
 */
export const MOVABLE_TYPES: readonly DataType[] = [
  ...ALL_TENSOR_TYPES,
  'float8e4m3fn',
  'float8e4m3fnuz',
  'float8e5m2',
  'float8e5m2fnuz',
  'int4',
  'uint4',
  'float4e2m1',
];
