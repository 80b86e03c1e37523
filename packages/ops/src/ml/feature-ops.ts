// ArrayFeatureExtractor and Binarizer (ai.onnx.ml).
import { type Dim, isUnknownRank } from '@tsge/metadef';
import { inferSameAsInput, requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { ML_DOMAIN } from './ml-domain.js';

export const arrayFeatureExtractorOp = defineOp({
  type: 'ArrayFeatureExtractor',
  domain: ML_DOMAIN,
  sinceVersion: 1,
  inputs: [param.required('X', 'T'), param.required('Y', 'int64')],
  outputs: [param.required('Z', 'T')],
  typeConstraints: [{ name: 'T', allowed: ['float32', 'float64', 'int64', 'int32', 'string'] }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const y = requireInput(ctx, 1);
    const count: Dim = isUnknownRank(y.shape)
      ? -1
      : y.shape.reduce<Dim>((a, d) => (typeof a === 'number' && a >= 0 && typeof d === 'number' && d >= 0 ? a * d : -1), 1);
    if (isUnknownRank(x.shape)) ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
    else if (x.shape.length <= 1) ctx.setOutput(0, { dtype: x.dtype, shape: [1, count] });
    else ctx.setOutput(0, { dtype: x.dtype, shape: [...x.shape.slice(0, -1), count] });
  },
});

export const binarizerOp = defineOp({
  type: 'Binarizer',
  domain: ML_DOMAIN,
  sinceVersion: 1,
  inputs: [param.required('X', 'T')],
  outputs: [param.required('Y', 'T')],
  attributes: [{ name: 'threshold', kind: 'float', default: { kind: 'float', value: 0 } }],
  typeConstraints: [{ name: 'T', allowed: ['float32', 'float64', 'int64', 'int32'] }],
  infer: inferSameAsInput,
});

export const featureOps = [arrayFeatureExtractorOp, binarizerOp];
