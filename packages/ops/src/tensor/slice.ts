// Slice: per-axis start/end/step with the spec's clamping, then one strided copy.
import { type Dim, ALL_TENSOR_TYPES, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { knownInts, normalizeAxis, unknownDims, whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

export interface AxisSlice {
  readonly start: number;
  readonly step: number;
  readonly count: number;
}

/** Clamps one axis' start/end for a step as ONNX Slice does and counts the elements taken. */
export function clampSlice(dim: number, start: number, end: number, step: number): AxisSlice {
  let s = start < 0 ? start + dim : start;
  let e = end < 0 ? end + dim : end;
  if (step > 0) {
    s = Math.min(Math.max(s, 0), dim);
    e = Math.min(Math.max(e, 0), dim);
  } else {
    s = Math.min(Math.max(s, 0), dim - 1);
    e = Math.min(Math.max(e, -1), dim - 1);
  }
  const count = Math.max(0, Math.ceil((e - s) / step));
  return { start: s, step, count };
}

export interface SliceArgs {
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  readonly axes: readonly number[];
  readonly steps: readonly number[];
}

export function sliceArgs(
  starts: number[],
  ends: number[],
  axes: number[] | undefined,
  steps: number[] | undefined,
  rank: number,
  where: string,
): SliceArgs {
  if (ends.length !== starts.length) throw new InferenceError(`${where}: starts and ends differ in length`);
  const ax = (axes ?? starts.map((_, i) => i)).map((a) => normalizeAxis(a, rank, where));
  if (new Set(ax).size !== ax.length) throw new InferenceError(`${where}: axes repeat`);
  const st = steps ?? starts.map(() => 1);
  if (ax.length !== starts.length || st.length !== starts.length)
    throw new InferenceError(`${where}: axes/steps length differs from starts`);
  if (st.some((s) => s === 0)) throw new InferenceError(`${where}: a step is 0`);
  return { starts, ends, axes: ax, steps: st };
}

export const sliceOp = defineOp({
  type: 'Slice',
  sinceVersion: 13,
  inputs: [
    param.required('data', 'T'),
    param.required('starts', 'Tind'),
    param.required('ends', 'Tind'),
    param.optional('axes', 'Tind'),
    param.optional('steps', 'Tind'),
  ],
  outputs: [param.required('output', 'T')],
  typeConstraints: [
    { name: 'T', allowed: ALL_TENSOR_TYPES },
    { name: 'Tind', allowed: ['int32', 'int64'] },
  ],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
      return;
    }
    const rank = x.shape.length;
    const starts = knownInts(ctx, 1);
    const ends = knownInts(ctx, 2);
    const axes = ctx.input(3) ? knownInts(ctx, 3) : undefined;
    const steps = ctx.input(4) ? knownInts(ctx, 4) : undefined;
    if (!starts || !ends || (ctx.input(3) && !axes) || (ctx.input(4) && !steps)) {
      // which axes change is unknown unless axes are known
      const shape: Dim[] = axes ? [...x.shape] : unknownDims(rank);
      if (axes) for (const a of axes) shape[normalizeAxis(a, rank, whereOf(ctx))] = -1;
      ctx.setOutput(0, { dtype: x.dtype, shape });
      return;
    }
    const args = sliceArgs(starts, ends, axes, steps, rank, whereOf(ctx));
    const shape: Dim[] = [...x.shape];
    args.axes.forEach((a, i) => {
      const d = x.shape[a] as Dim;
      shape[a] =
        typeof d === 'number' && d >= 0
          ? clampSlice(d, args.starts[i] as number, args.ends[i] as number, args.steps[i] as number).count
          : -1;
    });
    ctx.setOutput(0, { dtype: x.dtype, shape });
  },
});

export const sliceOps = [sliceOp];
