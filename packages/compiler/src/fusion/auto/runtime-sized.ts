import type { Shape, TensorDesc } from '@tsge/metadef';
import {
  CONTIGUOUS,
  RUNTIME_DIM,
  broadcastStrides,
  isStaticDim,
  isStaticShape,
  isUnknownRank,
  runStride,
  runtimeLayoutGroups,
  shapeSize,
} from '@tsge/metadef';

/**
 * Epilogues over dynamic dims (a model compiled without fixed input shapes): the description is
 * run-time sized (metadef `runtime-sized.ts`). The output's layout — [N, C, spatial] for a Conv,
 * [1, rows, N] for a MatMul — keeps its static dims and marks the others `RUNTIME_DIM`. An input
 * either has the output's rank and dynamic dims where the output has them (the kernel addresses it
 * from its dims at each run: the output's, or ones that broadcast to them, never beyond), or is
 * static and broadcast along every run-time dim.
 */

/** A float32 tensor of known rank with at least one dynamic dim (what this file handles). */
export function isDynamicFloat(desc: TensorDesc | undefined): desc is TensorDesc {
  return desc !== undefined && desc.dtype === 'float32' && !isUnknownRank(desc.shape) && !isStaticShape(desc.shape);
}

/** Output dims [from, to) as one layout dim: their product, or `RUNTIME_DIM` when any is dynamic. */
function extent(shape: Shape, from: number, to: number): number {
  let n = 1;
  for (let i = from; i < to; i++) {
    const d = shape[i] as Shape[number];
    if (!isStaticDim(d)) return RUNTIME_DIM;
    n *= d;
  }
  return n;
}

/** Whether an input of `dims` is the output itself as far as the compiler can tell (same rank, equal static dims). */
function sameDims(dims: Shape, out: Shape): boolean {
  return (
    dims.length === out.length &&
    dims.every((d, i) => isStaticDim(d) === isStaticDim(out[i] as Shape[number]) && (!isStaticDim(d) || d === out[i]))
  );
}

export interface RuntimeLayout {
  readonly shape: number[];
  readonly inputs: { size: number; strides: number[] }[];
}

/**
 * The run-time-sized layout of a description over `out` (an epilogue's host output, or a
 * standalone group's) reading `inputs` (input 0 of an epilogue is the host's output), or
 * undefined when some input is neither the output's dims nor a static tensor broadcast along every
 * run-time dim, or an epilogue's inner dim (C of a Conv, N of a MatMul) is dynamic.
 */
export function runtimeLayout(kind: 'conv' | 'matmul' | 'elementwise', out: Shape, inputs: readonly Shape[]): RuntimeLayout | undefined {
  const rank = out.length;
  if (rank < (kind === 'conv' ? 3 : kind === 'matmul' ? 2 : 1)) return undefined;
  const groups = runtimeLayoutGroups(kind, rank);
  const shape = groups.map(([from, to]) => extent(out, from, to));
  if (kind !== 'elementwise' && shape[kind === 'conv' ? 1 : 2] === RUNTIME_DIM) return undefined;
  const layoutInputs: RuntimeLayout['inputs'] = [];
  const atRunTime = { size: RUNTIME_DIM, strides: groups.map(() => CONTIGUOUS) };
  // a standalone group's output is the broadcast of its inputs at each run (the kernel takes its
  // dynamic dims from them): any input of known rank up to the output's may be addressed from its
  // run's dims, which must then broadcast to the output (checked per run, TSGE-E7103)
  const standalone = kind === 'elementwise';
  for (const dims of inputs) {
    const runtime = standalone ? !isUnknownRank(dims) && dims.length <= rank : sameDims(dims, out);
    if (!isStaticShape(dims)) {
      if (!runtime) return undefined;
      layoutInputs.push(atRunTime);
      continue;
    }
    const row = broadcastStrides(dims, out);
    const strides = row && groups.map(([from, to]) => runStride(out, row, from, to));
    if (strides?.every((s) => s !== undefined))
      layoutInputs.push({ size: Math.max(shapeSize(dims) ?? 1, 1), strides: strides as number[] });
    // a static input stepping along a dynamic dim of a standalone group's output
    else if (standalone && runtime) layoutInputs.push(atRunTime);
    else return undefined;
  }
  return { shape, inputs: layoutInputs };
}
