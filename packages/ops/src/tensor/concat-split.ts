// Concat and Split along one axis: contiguous block copies.
import { type Dim, type Shape, ALL_TENSOR_TYPES, InferenceError, isUnknownRank } from '@tsge/metadef';
import { knownInts, normalizeAxis, whereOf } from '../common/tensor-infer.js';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';

/** Output shape of concatenating shapes along an axis; unknown where undecidable. */
export function concatShape(shapes: readonly Shape[], axisAttr: number, where: string): Dim[] | undefined {
  const known = shapes.filter((s) => !isUnknownRank(s));
  const first = known[0];
  if (!first) return undefined;
  const rank = first.length;
  const axis = normalizeAxis(axisAttr, rank, where);
  const out: Dim[] = [...first];
  let total: Dim = 0;
  for (const s of shapes) {
    if (isUnknownRank(s)) {
      total = -1;
      continue;
    }
    if (s.length !== rank) throw new InferenceError(`${where}: inputs have ranks ${rank} and ${s.length}`);
    for (let i = 0; i < rank; i++) {
      if (i === axis) continue;
      const a = out[i] as Dim;
      const b = s[i] as Dim;
      if (typeof a === 'number' && a >= 0 && typeof b === 'number' && b >= 0 && a !== b)
        throw new InferenceError(`${where}: dim ${i} differs (${a} and ${b})`);
      if (!(typeof a === 'number' && a >= 0)) out[i] = b;
    }
    const d = s[axis] as Dim;
    total = typeof total === 'number' && total >= 0 && typeof d === 'number' && d >= 0 ? total + d : -1;
  }
  out[axis] = total;
  return out;
}

export const concatOp = defineOp({
  type: 'Concat',
  sinceVersion: 13,
  inputs: [param.variadic('inputs', 'T')],
  outputs: [param.required('concat_result', 'T')],
  attributes: [{ name: 'axis', kind: 'int', required: true }],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const first = requireInput(ctx, 0);
    const shapes: Shape[] = [];
    for (let i = 0; i < ctx.inputCount; i++) shapes.push(requireInput(ctx, i).shape);
    ctx.setOutput(0, { dtype: first.dtype, shape: concatShape(shapes, ctx.attrs.int('axis'), whereOf(ctx)) ?? [-2] });
  },
});

/** Sizes of Split's outputs along the axis. */
export function splitSizes(
  axisDim: number,
  outputs: number,
  split: readonly number[] | undefined,
  numOutputs: number | undefined,
  where: string,
): number[] {
  if (split) {
    if (split.length !== outputs) throw new InferenceError(`${where}: split has ${split.length} entries for ${outputs} outputs`);
    const sum = split.reduce((a, b) => a + b, 0);
    if (axisDim >= 0 && sum !== axisDim) throw new InferenceError(`${where}: split sums to ${sum}, the axis has ${axisDim}`);
    if (split.some((s) => s < 0)) throw new InferenceError(`${where}: split has a negative size`);
    return [...split];
  }
  const n = numOutputs ?? outputs;
  if (n <= 0) throw new InferenceError(`${where}: num_outputs must be positive`);
  if (numOutputs === undefined) {
    if (axisDim % n !== 0) throw new InferenceError(`${where}: axis of ${axisDim} does not split into ${n} equal parts`);
    return new Array<number>(n).fill(axisDim / n);
  }
  const chunk = Math.ceil(axisDim / n);
  return Array.from({ length: n }, (_, i) => Math.max(0, Math.min(chunk, axisDim - i * chunk)));
}

export const splitOp = defineOp({
  type: 'Split',
  sinceVersion: 18,
  inputs: [param.required('input', 'T'), param.optional('split', 'int64')],
  outputs: [param.variadic('outputs', 'T')],
  attributes: [
    { name: 'axis', kind: 'int', default: { kind: 'int', value: 0 } },
    { name: 'num_outputs', kind: 'int' },
  ],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    if (isUnknownRank(x.shape)) {
      for (let i = 0; i < ctx.outputCount; i++) ctx.setOutput(i, { dtype: x.dtype, shape: [-2] });
      return;
    }
    const axis = normalizeAxis(ctx.attrs.int('axis', 0), x.shape.length, whereOf(ctx));
    const d = x.shape[axis] as Dim;
    const split = ctx.input(1) ? knownInts(ctx, 1) : undefined;
    const known = typeof d === 'number' && d >= 0 && (split || !ctx.input(1));
    const numOutputs = ctx.attrs.has('num_outputs') ? ctx.attrs.int('num_outputs') : undefined;
    const sizes = known ? splitSizes(d as number, ctx.outputCount, split, numOutputs, whereOf(ctx)) : undefined;
    for (let i = 0; i < ctx.outputCount; i++) {
      const shape: Dim[] = [...x.shape];
      shape[axis] = sizes?.[i] ?? split?.[i] ?? -1;
      ctx.setOutput(i, { dtype: x.dtype, shape });
    }
  },
});

export const concatSplitOps = [concatOp, splitOp];
