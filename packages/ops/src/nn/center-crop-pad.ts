/** CenterCropPad: crops or zero-pads each listed axis symmetrically to the requested size. */
import { type OpDefinitionV1, ALL_TENSOR_TYPES, isUnknownRank, toNumberArray } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const centerCropPadOps: readonly OpDefinitionV1[] = [
  defineOp({
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
      const x = inputInfo(ctx, 0);
      const shape = ctx.inputValue(1);
      if (isUnknownRank(x.shape) || !shape) {
        ctx.setOutput(0, { dtype: x.dtype, shape: isUnknownRank(x.shape) ? x.shape : x.shape.map(() => -1) });
        return;
      }
      const rank = x.shape.length;
      const sizes = toNumberArray(shape);
      const axes = ctx.attrs.ints('axes', [...Array(rank).keys()]).map((a) => (a < 0 ? a + rank : a));
      const out = [...x.shape];
      axes.forEach((a, i) => {
        out[a] = sizes[i] as number;
      });
      ctx.setOutput(0, { dtype: x.dtype, shape: out });
    },
  }),
];
