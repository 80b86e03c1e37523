// Ops that change only the dims of a tensor, never the order of its elements.
import type { Dim, HostTensor, KernelContextV1 } from '@tsge/metadef';
import { copyBlock, sameStorage } from '../common/tensor-copy.js';
import { intList, kernelError, requireTensor } from '../common/tensor-infer.js';
import { whereOf, resolveReshape, flattenShape, squeezeShape, unsqueezeShape } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';

/** Writes input 0's elements unchanged under new dims (aliasing allowed: declared in-place). */
function copyWithDims(ctx: KernelContextV1, x: HostTensor, dims: readonly number[]): void {
  const y = ctx.output(0, dims, x.type);
  if (!sameStorage(y.data, x.data)) copyBlock(x.data, 0, y.data, 0, x.data.length);
}

export const reshapeKernel = defineKernel({
  opType: 'Reshape',
  inPlace: [[0, 0]],
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const requested = intList(requireTensor(ctx, 1));
    let dims: Dim[];
    try {
      dims = resolveReshape(x.dims, requested, ctx.attrs.int('allowzero', 0) !== 0, whereOf(ctx));
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    copyWithDims(ctx, x, dims as number[]);
  },
});

export const flattenKernel = defineKernel({
  opType: 'Flatten',
  inPlace: [[0, 0]],
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    copyWithDims(ctx, x, flattenShape(x.dims, ctx.attrs.int('axis', 1), whereOf(ctx)) as number[]);
  },
});

/** Axes from input 1, or from an opset-12 `axes` attribute a graph was not upgraded from. */
function axesOf(ctx: KernelContextV1): number[] | undefined {
  const t = ctx.tensor(1);
  if (t) return intList(t);
  return ctx.attrs.has('axes') ? [...ctx.attrs.ints('axes')] : undefined;
}

export const squeezeKernel = defineKernel({
  opType: 'Squeeze',
  inPlace: [[0, 0]],
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    try {
      copyWithDims(ctx, x, squeezeShape(x.dims, axesOf(ctx), whereOf(ctx)) as number[]);
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
  },
});

export const unsqueezeKernel = defineKernel({
  opType: 'Unsqueeze',
  inPlace: [[0, 0]],
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const axes = axesOf(ctx);
    if (!axes) throw kernelError(ctx, 'input 1 (axes) is required');
    try {
      copyWithDims(ctx, x, unsqueezeShape(x.dims, axes, whereOf(ctx)) as number[]);
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
  },
});
export const reshapeKernels = [reshapeKernel, flattenKernel, squeezeKernel, unsqueezeKernel];
