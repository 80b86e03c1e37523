/**
 * CausalConvWithState (opset 27): depthwise causal 1-D convolution that left-pads each channel
 * with past_state (or zeros), with optional SiLU, returning the last k-1 positions as state.
 */
import { type OpDefinitionV1, type Shape, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const causalConvOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'CausalConvWithState',
    sinceVersion: 27,
    inputs: [param.required('input', 'T'), param.required('weight', 'T'), param.optional('bias', 'T'), param.optional('past_state', 'T')],
    outputs: [param.required('output', 'T'), param.optional('present_state', 'T')],
    attributes: [{ name: 'activation', kind: 'string', default: { kind: 'string', value: 'none' } }],
    typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const w = inputInfo(ctx, 1);
      ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
      if (ctx.outputCount < 2) return;
      const k = isUnknownRank(w.shape) ? -1 : w.shape[2];
      const width: Shape[number] = typeof k === 'number' && k >= 1 ? k - 1 : -1;
      const shape: Shape = isUnknownRank(x.shape) ? [-1, -1, width] : [x.shape[0] as Shape[number], x.shape[1] as Shape[number], width];
      ctx.setOutput(1, { dtype: x.dtype, shape });
    },
  }),
];
