/** RoiAlign (avg/max, half_pixel or output_half_pixel) and MaxRoiPool over NCHW feature maps. */
import { type OpDefinitionV1, type Shape, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const roiPoolOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'RoiAlign',
    sinceVersion: 22,
    inputs: [param.required('X', 'T1'), param.required('rois', 'T1'), param.required('batch_indices', 'T2')],
    outputs: [param.required('Y', 'T1')],
    attributes: [
      { name: 'coordinate_transformation_mode', kind: 'string', default: { kind: 'string', value: 'half_pixel' } },
      { name: 'mode', kind: 'string', default: { kind: 'string', value: 'avg' } },
      { name: 'output_height', kind: 'int', default: { kind: 'int', value: 1 } },
      { name: 'output_width', kind: 'int', default: { kind: 'int', value: 1 } },
      { name: 'sampling_ratio', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'spatial_scale', kind: 'float', default: { kind: 'float', value: 1 } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: NN_FLOAT_TYPES },
      { name: 'T2', allowed: ['int64'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const rois = inputInfo(ctx, 1);
      const num: Shape[number] = isUnknownRank(rois.shape) ? -1 : (rois.shape[0] as Shape[number]);
      const channels: Shape[number] = isUnknownRank(x.shape) ? -1 : (x.shape[1] as Shape[number]);
      ctx.setOutput(0, { dtype: x.dtype, shape: [num, channels, ctx.attrs.int('output_height', 1), ctx.attrs.int('output_width', 1)] });
    },
  }),
  defineOp({
    type: 'MaxRoiPool',
    sinceVersion: 22,
    inputs: [param.required('X', 'T'), param.required('rois', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: [
      { name: 'pooled_shape', kind: 'ints', required: true },
      { name: 'spatial_scale', kind: 'float', default: { kind: 'float', value: 1 } },
    ],
    typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const rois = inputInfo(ctx, 1);
      const pooled = ctx.attrs.ints('pooled_shape');
      const num: Shape[number] = isUnknownRank(rois.shape) ? -1 : (rois.shape[0] as Shape[number]);
      const channels: Shape[number] = isUnknownRank(x.shape) ? -1 : (x.shape[1] as Shape[number]);
      ctx.setOutput(0, { dtype: x.dtype, shape: [num, channels, pooled[0] ?? 1, pooled[1] ?? 1] });
    },
  }),
];
