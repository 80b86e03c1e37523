/**
 * Normalizations: BatchNormalization (inference and training_mode), InstanceNormalization,
 * LayerNormalization, GroupNormalization, RMSNormalization, LRN, MeanVarianceNormalization and
 * LpNormalization. Statistics accumulate in float64 whatever the storage type.
 */
import { type DataType, type InferenceContextV1, type OpDefinitionV1, type Shape, isUnknownRank } from '@tsge/metadef';
import { inferSameAsInput } from '../common/infer-helpers.js';
import { NN_FLOAT_TYPES, inputInfo, normalizeAxisForInfer } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

const floatT = { name: 'T', allowed: NN_FLOAT_TYPES };
const epsilonAttr = (value = 1e-5) => ({ name: 'epsilon', kind: 'float', default: { kind: 'float', value } }) as const;

/** Stash dtype for LayerNormalization's Mean/InvStdDev outputs. */
export function stashType(x: DataType): DataType {
  return x === 'float64' ? 'float64' : 'float32';
}

function inferLayerNorm(ctx: InferenceContextV1): void {
  const x = inputInfo(ctx, 0);
  ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
  if (ctx.outputCount < 2) return;
  let statShape: Shape = x.shape;
  if (!isUnknownRank(x.shape)) {
    const axis = normalizeAxisForInfer(ctx, ctx.attrs.int('axis', -1), x.shape.length);
    statShape = x.shape.map((d, i) => (i < axis ? d : 1));
  }
  const dtype = stashType(x.dtype);
  ctx.setOutput(1, { dtype, shape: statShape });
  if (ctx.outputCount > 2) ctx.setOutput(2, { dtype, shape: statShape });
}

function inferBatchNorm(ctx: InferenceContextV1): void {
  const x = inputInfo(ctx, 0);
  ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
  const mean = ctx.input(3);
  for (let i = 1; i < Math.min(3, ctx.outputCount); i++) if (mean) ctx.setOutput(i, { dtype: mean.dtype, shape: mean.shape });
}

export const normalizationOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'BatchNormalization',
    sinceVersion: 15,
    inputs: [
      param.required('X', 'T'),
      param.required('scale', 'T1'),
      param.required('B', 'T1'),
      param.required('input_mean', 'T2'),
      param.required('input_var', 'T2'),
    ],
    outputs: [param.required('Y', 'T'), param.optional('running_mean', 'T2'), param.optional('running_var', 'T2')],
    attributes: [
      epsilonAttr(),
      { name: 'momentum', kind: 'float', default: { kind: 'float', value: 0.9 } },
      { name: 'training_mode', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [floatT, { name: 'T1', allowed: NN_FLOAT_TYPES }, { name: 'T2', allowed: NN_FLOAT_TYPES }],
    infer: inferBatchNorm,
  }),
  defineOp({
    type: 'InstanceNormalization',
    sinceVersion: 22,
    inputs: [param.required('input', 'T'), param.required('scale', 'T'), param.required('B', 'T')],
    outputs: [param.required('output', 'T')],
    attributes: [epsilonAttr()],
    typeConstraints: [floatT],
    infer: inferSameAsInput,
  }),
  defineOp({
    type: 'LayerNormalization',
    sinceVersion: 17,
    inputs: [param.required('X', 'T'), param.required('Scale', 'T'), param.optional('B', 'T')],
    outputs: [param.required('Y', 'T'), param.optional('Mean', 'U'), param.optional('InvStdDev', 'U')],
    attributes: [
      { name: 'axis', kind: 'int', default: { kind: 'int', value: -1 } },
      epsilonAttr(),
      { name: 'stash_type', kind: 'int', default: { kind: 'int', value: 1 } },
    ],
    typeConstraints: [floatT, { name: 'U', allowed: ['float32', 'bfloat16', 'float64', 'float16'] }],
    infer: inferLayerNorm,
  }),
  defineOp({
    type: 'GroupNormalization',
    sinceVersion: 21,
    inputs: [param.required('X', 'T'), param.required('scale', 'T'), param.required('bias', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: [
      epsilonAttr(),
      { name: 'num_groups', kind: 'int', required: true },
      { name: 'stash_type', kind: 'int', default: { kind: 'int', value: 1 } },
    ],
    typeConstraints: [floatT],
    infer: inferSameAsInput,
  }),
  defineOp({
    type: 'RMSNormalization',
    sinceVersion: 23,
    inputs: [param.required('X', 'T'), param.required('scale', 'V')],
    outputs: [param.required('Y', 'V')],
    attributes: [
      { name: 'axis', kind: 'int', default: { kind: 'int', value: -1 } },
      epsilonAttr(),
      { name: 'stash_type', kind: 'int', default: { kind: 'int', value: 1 } },
    ],
    typeConstraints: [floatT, { name: 'V', allowed: NN_FLOAT_TYPES }],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      ctx.setOutput(0, { dtype: ctx.input(1)?.dtype ?? x.dtype, shape: x.shape });
    },
  }),
  defineOp({
    type: 'LRN',
    sinceVersion: 13,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: [
      { name: 'alpha', kind: 'float', default: { kind: 'float', value: 0.0001 } },
      { name: 'beta', kind: 'float', default: { kind: 'float', value: 0.75 } },
      { name: 'bias', kind: 'float', default: { kind: 'float', value: 1 } },
      { name: 'size', kind: 'int', required: true },
    ],
    typeConstraints: [floatT],
    infer: inferSameAsInput,
  }),
  defineOp({
    type: 'MeanVarianceNormalization',
    sinceVersion: 13,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: [{ name: 'axes', kind: 'ints', default: { kind: 'ints', value: [0, 2, 3] } }],
    typeConstraints: [floatT],
    infer: inferSameAsInput,
  }),
  defineOp({
    type: 'LpNormalization',
    sinceVersion: 22,
    inputs: [param.required('input', 'T')],
    outputs: [param.required('output', 'T')],
    attributes: [
      { name: 'axis', kind: 'int', default: { kind: 'int', value: -1 } },
      { name: 'p', kind: 'int', default: { kind: 'int', value: 2 } },
    ],
    typeConstraints: [floatT],
    infer: inferSameAsInput,
  }),
];
