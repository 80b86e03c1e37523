// Slice: per-axis start/end/step with the spec's clamping, then one strided copy.
import type { Dim } from '@tsge/metadef';
import { ALL_TENSOR_TYPES, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { copyByAxisTables, linearTable, rowMajorStrides } from '../common/tensor-copy.js';
import { intList, kernelError, knownInts, normalizeAxis, requireTensor, unknownDims, whereOf } from '../common/tensor-infer.js';
import { defineKernel, defineOp, param } from '../define.js';

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

interface SliceArgs {
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  readonly axes: readonly number[];
  readonly steps: readonly number[];
}

function sliceArgs(
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

export const sliceKernel = defineKernel({
  opType: 'Slice',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const rank = x.dims.length;
    const axesT = ctx.tensor(3);
    const stepsT = ctx.tensor(4);
    let args: SliceArgs;
    try {
      args = sliceArgs(
        intList(requireTensor(ctx, 1)),
        intList(requireTensor(ctx, 2)),
        axesT ? intList(axesT) : undefined,
        stepsT ? intList(stepsT) : undefined,
        rank,
        whereOf(ctx),
      );
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    const strides = rowMajorStrides(x.dims);
    const outDims = [...x.dims];
    const tables = x.dims.map((d, i) => linearTable(d, strides[i] as number));
    args.axes.forEach((a, i) => {
      const s = clampSlice(x.dims[a] as number, args.starts[i] as number, args.ends[i] as number, args.steps[i] as number);
      outDims[a] = s.count;
      tables[a] = linearTable(s.count, s.step * (strides[a] as number), s.start * (strides[a] as number));
    });
    const y = ctx.output(0, outDims, x.type);
    copyByAxisTables(x.data, y.data, outDims, tables);
  },
});

export const sliceOps = [sliceOp];
export const sliceKernels = [sliceKernel];
