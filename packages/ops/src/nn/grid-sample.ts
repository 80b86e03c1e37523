/** GridSample (N-D, nearest/linear/cubic, zeros/border/reflection padding) and AffineGrid. */
import { type InferenceContextV1, type OpDefinitionV1, type Shape, InferenceError, isUnknownRank, toNumberArray } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const gridSampleOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'GridSample',
    sinceVersion: 22,
    inputs: [param.required('X', 'T1'), param.required('grid', 'T2')],
    outputs: [param.required('Y', 'T1')],
    attributes: [
      { name: 'align_corners', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'mode', kind: 'string', default: { kind: 'string', value: 'linear' } },
      { name: 'padding_mode', kind: 'string', default: { kind: 'string', value: 'zeros' } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: [...NN_FLOAT_TYPES, 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'bool'] },
      { name: 'T2', allowed: NN_FLOAT_TYPES },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const grid = inputInfo(ctx, 1);
      if (isUnknownRank(x.shape) || isUnknownRank(grid.shape)) {
        ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
        return;
      }
      ctx.setOutput(0, { dtype: x.dtype, shape: [x.shape[0] as Shape[number], x.shape[1] as Shape[number], ...grid.shape.slice(1, -1)] });
    },
  }),
  defineOp({
    type: 'AffineGrid',
    sinceVersion: 20,
    inputs: [param.required('theta', 'T1'), param.required('size', 'T2')],
    outputs: [param.required('grid', 'T1')],
    attributes: [{ name: 'align_corners', kind: 'int', default: { kind: 'int', value: 0 } }],
    typeConstraints: [
      { name: 'T1', allowed: NN_FLOAT_TYPES },
      { name: 'T2', allowed: ['int64'] },
    ],
    infer(ctx: InferenceContextV1) {
      const theta = inputInfo(ctx, 0);
      const size = ctx.inputValue(1);
      if (!size) {
        ctx.setOutput(0, { dtype: theta.dtype, shape: [-2] });
        return;
      }
      const dims = toNumberArray(size);
      if (dims.length !== 4 && dims.length !== 5) throw new InferenceError(`AffineGrid ${ctx.nodeName}: size must have 4 or 5 values`);
      ctx.setOutput(0, { dtype: theta.dtype, shape: [dims[0] as number, ...dims.slice(2), dims.length - 2] });
    },
  }),
];
