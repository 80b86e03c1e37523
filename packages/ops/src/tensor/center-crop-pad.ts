// CenterCropPad: per axis, crop or zero-pad symmetrically (extra element at the end) to a size.
import type { Dim } from '@tsge/metadef';
import { ALL_TENSOR_TYPES, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { OUTSIDE, copyByAxisTables, rowMajorStrides } from '../common/tensor-copy.js';
import { intList, kernelError, knownInts, normalizeAxis, requireTensor, unknownDims, whereOf } from '../common/tensor-infer.js';
import { defineKernel, defineOp, param } from '../define.js';

/** Target size per axis (input size where the axis is not listed). */
function targetDims<D extends Dim>(
  dims: readonly D[],
  shape: readonly number[],
  axesAttr: readonly number[] | undefined,
  where: string,
): (D | number)[] {
  const axes = (axesAttr ?? dims.map((_, i) => i)).map((a) => normalizeAxis(a, dims.length, where));
  if (shape.length !== axes.length) throw new InferenceError(`${where}: shape has ${shape.length} entries for ${axes.length} axes`);
  const out: (D | number)[] = [...dims];
  axes.forEach((a, i) => {
    const s = shape[i] as number;
    if (s < 0) throw new InferenceError(`${where}: negative target size ${s}`);
    out[a] = s;
  });
  return out;
}

export const centerCropPadOp = defineOp({
  type: 'CenterCropPad',
  sinceVersion: 18,
  inputs: [param.required('input_data', 'T'), param.required('shape', 'Tind')],
  outputs: [param.required('output_data', 'T')],
  attributes: [{ name: 'axes', kind: 'ints' }],
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
    const shape = knownInts(ctx, 1);
    const axes = ctx.attrs.has('axes') ? ctx.attrs.ints('axes') : undefined;
    ctx.setOutput(0, { dtype: x.dtype, shape: shape ? targetDims(x.shape, shape, axes, whereOf(ctx)) : unknownDims(x.shape.length) });
  },
});

export const centerCropPadKernel = defineKernel({
  opType: 'CenterCropPad',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    let outDims: number[];
    try {
      outDims = targetDims(
        x.dims,
        intList(requireTensor(ctx, 1)),
        ctx.attrs.has('axes') ? ctx.attrs.ints('axes') : undefined,
        whereOf(ctx),
      );
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    const strides = rowMajorStrides(x.dims);
    const tables = outDims.map((target, axis) => {
      const size = x.dims[axis] as number;
      // crop starts (size - target) / 2 in; pad starts (target - size) / 2 out, both rounded down
      const offset = size >= target ? Math.floor((size - target) / 2) : -Math.floor((target - size) / 2);
      const table = new Float64Array(target);
      for (let o = 0; o < target; o++) {
        const i = o + offset;
        table[o] = i >= 0 && i < size ? i * (strides[axis] as number) : OUTSIDE;
      }
      return table;
    });
    const y = ctx.output(0, outDims, x.type);
    const zero = x.type === 'string' ? '' : x.type === 'int64' || x.type === 'uint64' ? 0n : 0;
    copyByAxisTables(x.data, y.data, outDims, tables, zero);
  },
});

export const centerCropPadOps = [centerCropPadOp];
export const centerCropPadKernels = [centerCropPadKernel];
