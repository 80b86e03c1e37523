// ai.onnx.preview.training optimizers: Adagrad, Adam and Momentum. Each takes a learning rate R,
// a step count T and groups of equally long tensor lists (X, G, state...), and returns new lists.
import { type InferenceContextV1, InferenceError } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

export const TRAINING_DOMAIN = 'ai.onnx.preview.training';

const TYPES = [
  { name: 'T1', allowed: ['float32', 'float64'] as const },
  { name: 'T2', allowed: ['int64'] as const },
  { name: 'T3', allowed: ['float32', 'float64'] as const },
];

/**
 * Infers an optimizer whose inputs after R and T are `groups` lists of n tensors and whose
 * outputs are `outGroups` lists: output list g mirrors input list `outFrom[g]`.
 */
function inferOptimizer(ctx: InferenceContextV1, groups: number, outFrom: readonly number[]): void {
  const n = (ctx.inputCount - 2) / groups;
  if (!Number.isInteger(n) || n < 1) throw new InferenceError(`${whereOf(ctx)}: ${ctx.inputCount - 2} tensors do not form ${groups} lists`);
  outFrom.forEach((group, g) => {
    for (let i = 0; i < n; i++) ctx.setOutput(g * n + i, requireInput(ctx, 2 + group * n + i));
  });
}

export const adagradOp = defineOp({
  type: 'Adagrad',
  domain: TRAINING_DOMAIN,
  sinceVersion: 1,
  inputs: [param.required('R', 'T1'), param.required('T', 'T2'), param.variadic('inputs', 'T3', 1, false)],
  outputs: [param.variadic('outputs', 'T3', 1, false)],
  attributes: [
    { name: 'decay_factor', kind: 'float', default: { kind: 'float', value: 0 } },
    { name: 'epsilon', kind: 'float', default: { kind: 'float', value: 1e-6 } },
    { name: 'norm_coefficient', kind: 'float', default: { kind: 'float', value: 0 } },
  ],
  typeConstraints: TYPES,
  infer: (ctx) => inferOptimizer(ctx, 3, [0, 2]),
});

export const adamOp = defineOp({
  type: 'Adam',
  domain: TRAINING_DOMAIN,
  sinceVersion: 1,
  inputs: [param.required('R', 'T1'), param.required('T', 'T2'), param.variadic('inputs', 'T3', 1, false)],
  outputs: [param.variadic('outputs', 'T3', 1, false)],
  attributes: [
    { name: 'alpha', kind: 'float', default: { kind: 'float', value: 0.9 } },
    { name: 'beta', kind: 'float', default: { kind: 'float', value: 0.999 } },
    { name: 'epsilon', kind: 'float', default: { kind: 'float', value: 1e-6 } },
    { name: 'norm_coefficient', kind: 'float', default: { kind: 'float', value: 0 } },
    { name: 'norm_coefficient_post', kind: 'float', default: { kind: 'float', value: 0 } },
  ],
  typeConstraints: TYPES,
  infer: (ctx) => inferOptimizer(ctx, 4, [0, 2, 3]),
});

export const momentumOp = defineOp({
  type: 'Momentum',
  domain: TRAINING_DOMAIN,
  sinceVersion: 1,
  inputs: [param.required('R', 'T1'), param.required('T', 'T2'), param.variadic('inputs', 'T3', 1, false)],
  outputs: [param.variadic('outputs', 'T3', 1, false)],
  attributes: [
    { name: 'alpha', kind: 'float', required: true },
    { name: 'beta', kind: 'float', required: true },
    { name: 'mode', kind: 'string', required: true },
    { name: 'norm_coefficient', kind: 'float', required: true },
  ],
  typeConstraints: TYPES,
  infer: (ctx) => inferOptimizer(ctx, 3, [0, 2]),
});

export const trainingOps = [adagradOp, adamOp, momentumOp];
