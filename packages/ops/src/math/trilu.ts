/** Trilu: keep the upper or lower triangle of the last two dims, offset by k. */
import { type OpDefinitionV1, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { ALL_TYPES } from './op-types.js';

export const triluOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Trilu',
    sinceVersion: 14,
    inputs: [param.required('input', 'T'), param.optional('k', 'int64')],
    outputs: [param.required('output', 'T')],
    attributes: [{ name: 'upper', kind: 'int', default: { kind: 'int', value: 1 } }],
    typeConstraints: [{ name: 'T', allowed: ALL_TYPES }],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      if (!isUnknownRank(x.shape) && x.shape.length < 2) throw new InferenceError(`Trilu ${ctx.nodeName}: input rank must be ≥ 2`);
      ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
    },
  }),
];
