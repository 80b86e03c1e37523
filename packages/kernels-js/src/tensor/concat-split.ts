// Concat and Split along one axis: contiguous block copies.
import type { HostTensor } from '@tsge/metadef';
import { copyBlock, product } from '../common/tensor-copy.js';
import { intList, kernelAxis, kernelError, requireTensor } from '../common/tensor-infer.js';
import { whereOf, splitSizes } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';

/** Concatenates `parts` along `axis` into `target` (all of one dtype, equal dims off the axis). */
export function concatInto(parts: readonly HostTensor[], axis: number, target: HostTensor): void {
  const outer = product(target.dims, 0, axis);
  const inner = product(target.dims, axis + 1);
  const outAxis = target.dims[axis] as number;
  let offset = 0;
  for (const part of parts) {
    const block = (part.dims[axis] as number) * inner;
    for (let o = 0; o < outer; o++) copyBlock(part.data, o * block, target.data, o * outAxis * inner + offset, block);
    offset += block;
  }
}

export const concatKernel = defineKernel({
  opType: 'Concat',
  compute(ctx) {
    const parts: HostTensor[] = [];
    for (let i = 0; i < ctx.inputCount; i++) parts.push(requireTensor(ctx, i));
    const first = parts[0];
    if (!first) throw kernelError(ctx, 'no inputs');
    const rank = first.dims.length;
    const axis = kernelAxis(ctx, ctx.attrs.int('axis'), rank);
    const dims = [...first.dims];
    dims[axis] = 0;
    for (const p of parts) {
      if (p.dims.length !== rank || p.dims.some((d, i) => i !== axis && d !== first.dims[i]))
        throw kernelError(ctx, `input dims [${p.dims.join(',')}] do not match [${first.dims.join(',')}]`);
      dims[axis] = (dims[axis] as number) + (p.dims[axis] as number);
    }
    concatInto(parts, axis, ctx.output(0, dims, first.type));
  },
});

export const splitKernel = defineKernel({
  opType: 'Split',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const axis = kernelAxis(ctx, ctx.attrs.int('axis', 0), x.dims.length);
    const s = ctx.tensor(1);
    const numOutputs = ctx.attrs.has('num_outputs') ? ctx.attrs.int('num_outputs') : undefined;
    let sizes: number[];
    try {
      sizes = splitSizes(x.dims[axis] as number, ctx.outputCount, s ? intList(s) : undefined, numOutputs, whereOf(ctx));
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    const outer = product(x.dims, 0, axis);
    const inner = product(x.dims, axis + 1);
    const rowIn = (x.dims[axis] as number) * inner;
    let offset = 0;
    for (let i = 0; i < ctx.outputCount; i++) {
      const size = sizes[i] as number;
      const dims = [...x.dims];
      dims[axis] = size;
      const y = ctx.output(i, dims, x.type);
      const block = size * inner;
      for (let o = 0; o < outer; o++) copyBlock(x.data, o * rowIn + offset, y.data, o * block, block);
      offset += block;
    }
  },
});
export const concatSplitKernels = [concatKernel, splitKernel];
