// Identity (tensors, sequences, optionals), Constant (every value_* attribute) and ConstantOfShape.
import { type HostTensor, isHostTensor } from '@tsge/metadef';
import { copyBlock, sameStorage, fillSlots, rawElement } from '../common/tensor-copy.js';
import { intList, kernelError, requireTensor } from '../common/tensor-infer.js';
import { whereOf, constantValue } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';

export const identityKernel = defineKernel({
  opType: 'Identity',
  inPlace: [[0, 0]],
  compute(ctx) {
    const v = ctx.input(0);
    if (v === undefined) throw kernelError(ctx, 'input 0 is required');
    if (!isHostTensor(v)) {
      ctx.setOutput(0, v);
      return;
    }
    const y = ctx.output(0, v.dims, v.type);
    if (!sameStorage(y.data, v.data)) copyBlock(v.data, 0, y.data, 0, v.data.length);
  },
});

export const constantKernel = defineKernel({
  opType: 'Constant',
  compute(ctx) {
    let t: HostTensor;
    try {
      t = constantValue(ctx.attrs, whereOf(ctx));
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    const y = ctx.output(0, t.dims, t.type);
    copyBlock(t.data, 0, y.data, 0, t.data.length);
  },
});

export const constantOfShapeKernel = defineKernel({
  opType: 'ConstantOfShape',
  compute(ctx) {
    const dims = intList(requireTensor(ctx, 0));
    if (dims.some((d) => d < 0 || !Number.isInteger(d))) throw kernelError(ctx, `invalid dims [${dims.join(',')}]`);
    const value = ctx.attrs.tensor('value');
    const dtype = value?.type ?? 'float32';
    const y = ctx.output(0, dims, dtype);
    fillSlots(
      y.data,
      value && value.data.length > 0 ? rawElement(value, 0) : dtype === 'int64' || dtype === 'uint64' ? 0n : dtype === 'string' ? '' : 0,
    );
  },
});
export const identityConstantKernels = [identityKernel, constantKernel, constantOfShapeKernel];
