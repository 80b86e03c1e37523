/** Col2Im: the adjoint of im2col, scatter-adding column blocks back into an image. */
import { type OpDefinitionV1, type Shape, isUnknownRank, toNumberArray } from '@tsge/metadef';
import { NN_FLOAT_TYPES, dimProduct, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const col2imOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Col2Im',
    sinceVersion: 18,
    inputs: [param.required('input', 'T'), param.required('image_shape', 'int64'), param.required('block_shape', 'int64')],
    outputs: [param.required('output', 'T')],
    attributes: [
      { name: 'dilations', kind: 'ints' },
      { name: 'pads', kind: 'ints' },
      { name: 'strides', kind: 'ints' },
    ],
    typeConstraints: [
      { name: 'T', allowed: [...NN_FLOAT_TYPES, 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const image = ctx.inputValue(1);
      const block = ctx.inputValue(2);
      if (isUnknownRank(x.shape) || !image || !block) {
        ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
        return;
      }
      const blockSize = dimProduct(toNumberArray(block));
      const c = x.shape[1];
      const channels: Shape[number] = typeof c === 'number' && c >= 0 ? c / blockSize : -1;
      ctx.setOutput(0, { dtype: x.dtype, shape: [x.shape[0] as Shape[number], channels, ...toNumberArray(image)] });
    },
  }),
];
