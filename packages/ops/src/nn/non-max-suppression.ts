/** NonMaxSuppression: greedy per (batch, class) selection by score with IoU suppression. */
import type { OpDefinitionV1 } from '@tsge/metadef';
import { defineOp, param } from '../define.js';

export const nonMaxSuppressionOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'NonMaxSuppression',
    sinceVersion: 11,
    inputs: [
      param.required('boxes', 'float32'),
      param.required('scores', 'float32'),
      param.optional('max_output_boxes_per_class', 'int64'),
      param.optional('iou_threshold', 'float32'),
      param.optional('score_threshold', 'float32'),
    ],
    outputs: [param.required('selected_indices', 'int64')],
    attributes: [{ name: 'center_point_box', kind: 'int', default: { kind: 'int', value: 0 } }],
    infer(ctx) {
      ctx.setOutput(0, { dtype: 'int64', shape: [ctx.newSymbol('nms'), 3] });
    },
  }),
];
