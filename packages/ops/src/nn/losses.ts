/** NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss with reduction, weights and ignore_index. */
import { type InferenceContextV1, type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

function inferLoss(ctx: InferenceContextV1): void {
  const x = inputInfo(ctx, 0);
  const reduction = ctx.attrs.string('reduction', 'mean');
  let shape: Shape = [];
  if (reduction === 'none') {
    if (isUnknownRank(x.shape)) shape = x.shape;
    else {
      if (x.shape.length < 2) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: input must have rank >= 2`);
      shape = [x.shape[0] as Shape[number], ...x.shape.slice(2)];
    }
  }
  ctx.setOutput(0, { dtype: x.dtype, shape });
  if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: x.dtype, shape: x.shape });
}

const lossAttributes = [
  { name: 'ignore_index', kind: 'int' },
  { name: 'reduction', kind: 'string', default: { kind: 'string', value: 'mean' } },
] as const;

export const lossOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'NegativeLogLikelihoodLoss',
    sinceVersion: 22,
    inputs: [param.required('input', 'T'), param.required('target', 'Tind'), param.optional('weight', 'T')],
    outputs: [param.required('loss', 'T')],
    attributes: lossAttributes,
    typeConstraints: [
      { name: 'T', allowed: NN_FLOAT_TYPES },
      { name: 'Tind', allowed: ['int32', 'int64'] },
    ],
    infer: inferLoss,
  }),
  defineOp({
    type: 'SoftmaxCrossEntropyLoss',
    sinceVersion: 13,
    inputs: [param.required('scores', 'T'), param.required('labels', 'Tind'), param.optional('weights', 'T')],
    outputs: [param.required('output', 'T'), param.optional('log_prob', 'T')],
    attributes: lossAttributes,
    typeConstraints: [
      { name: 'T', allowed: NN_FLOAT_TYPES },
      { name: 'Tind', allowed: ['int32', 'int64'] },
    ],
    infer: inferLoss,
  }),
];
