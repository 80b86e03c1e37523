/** MaxUnpool: scatters pooled values back to the flat positions MaxPool's Indices recorded. */
import { type OpDefinitionV1, type Shape, isUnknownRank, toNumberArray } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export function unpoolDims(
  dims: readonly number[],
  kernel: readonly number[],
  strides: readonly number[],
  pads: readonly number[],
): number[] {
  const n = kernel.length;
  return dims.slice(2).map((d, i) => (d - 1) * ((strides[i] as number) ?? 1) + (kernel[i] as number) - (pads[i] ?? 0) - (pads[i + n] ?? 0));
}

export const maxUnpoolOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'MaxUnpool',
    sinceVersion: 22,
    inputs: [param.required('X', 'T1'), param.required('I', 'T2'), param.optional('output_shape', 'T2')],
    outputs: [param.required('output', 'T1')],
    attributes: [
      { name: 'kernel_shape', kind: 'ints', required: true },
      { name: 'pads', kind: 'ints' },
      { name: 'strides', kind: 'ints' },
    ],
    typeConstraints: [
      { name: 'T1', allowed: NN_FLOAT_TYPES },
      { name: 'T2', allowed: ['int64'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const given = ctx.inputValue(2);
      if (given) {
        ctx.setOutput(0, { dtype: x.dtype, shape: toNumberArray(given) });
        return;
      }
      if (ctx.input(2) || isUnknownRank(x.shape)) {
        ctx.setOutput(0, { dtype: x.dtype, shape: isUnknownRank(x.shape) ? x.shape : x.shape.map(() => -1) });
        return;
      }
      const kernel = ctx.attrs.ints('kernel_shape');
      const strides = ctx.attrs.ints(
        'strides',
        kernel.map(() => 1),
      );
      const pads = ctx.attrs.ints('pads', [...kernel.map(() => 0), ...kernel.map(() => 0)]);
      const spatial: Shape[number][] = x.shape
        .slice(2)
        .map((d, i) =>
          typeof d === 'number' && d >= 0
            ? (unpoolDims(
                [0, 0, d],
                [kernel[i] as number],
                [strides[i] as number],
                [pads[i] as number, pads[i + kernel.length] as number],
              )[0] as number)
            : -1,
        );
      ctx.setOutput(0, { dtype: x.dtype, shape: [x.shape[0] as Shape[number], x.shape[1] as Shape[number], ...spatial] });
    },
  }),
];
