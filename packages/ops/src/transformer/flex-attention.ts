/**
 * FlexAttention (ai.onnx.preview): scaled dot-product attention whose scores and probabilities
 * pass through optional `score_mod` / `prob_mod` subgraphs applied to the whole [B, H, L, S] tensor.
 */
import { type OpDefinitionV1, type Shape, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const PREVIEW_DOMAIN = 'ai.onnx.preview';

export const flexAttentionOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'FlexAttention',
    domain: PREVIEW_DOMAIN,
    sinceVersion: 1,
    inputs: [param.required('Q', 'T'), param.required('K', 'T'), param.required('V', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: [
      { name: 'scale', kind: 'float' },
      { name: 'score_mod', kind: 'graph' },
      { name: 'prob_mod', kind: 'graph' },
    ],
    typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
    infer(ctx) {
      const q = inputInfo(ctx, 0);
      const v = inputInfo(ctx, 2);
      if (isUnknownRank(q.shape) || isUnknownRank(v.shape)) {
        ctx.setOutput(0, { dtype: q.dtype, shape: [-2] });
        return;
      }
      ctx.setOutput(0, { dtype: q.dtype, shape: [...q.shape.slice(0, -1), v.shape[v.shape.length - 1] as Shape[number]] });
    },
  }),
];
