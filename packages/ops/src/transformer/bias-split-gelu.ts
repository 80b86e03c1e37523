/**
 * com.microsoft BiasSplitGelu (diffusion models): X + bias is split in half along the last axis and
 * the left half is multiplied by the exact GELU of the right half, so the output is [N, S, D / 2].
 */
import { type OpDefinitionV1, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const biasSplitGeluOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'BiasSplitGelu',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [param.required('X', 'T'), param.required('bias', 'T')],
    outputs: [param.required('Y', 'T')],
    typeConstraints: [{ name: 'T', allowed: ['float32', 'float16'] }],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      if (isUnknownRank(x.shape)) {
        ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
        return;
      }
      if (x.shape.length !== 3)
        throw new InferenceError(`BiasSplitGelu ${ctx.nodeName}: X must be 3-D [N, S, D], got rank ${x.shape.length}`);
      const d = x.shape[2];
      if (typeof d === 'number' && d >= 0 && d % 2 !== 0)
        throw new InferenceError(`BiasSplitGelu ${ctx.nodeName}: the hidden size ${d} must be even`);
      const half = typeof d === 'number' && d >= 0 ? d / 2 : -1;
      ctx.setOutput(0, { dtype: x.dtype, shape: [x.shape[0] as number, x.shape[1] as number, half] });
    },
  }),
];
