// ScatterElements (and its old alias Scatter), ScatterND and TensorScatter: copy data, then write
// updates at indexed places, optionally combining with a reduction.
import { ALL_TENSOR_TYPES, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { normalizeAxis, whereOf } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

const TYPES = [
  { name: 'T', allowed: ALL_TENSOR_TYPES },
  { name: 'Tind', allowed: ['int32', 'int64'] as const },
];
const REDUCTION = { name: 'reduction', kind: 'string', default: { kind: 'string', value: 'none' } } as const;

function inferSameAsData(ctx: Parameters<typeof scatterElementsOp.infer>[0]): void {
  const x = requireInput(ctx, 0);
  const updates = requireInput(ctx, 2);
  if (updates.dtype !== x.dtype) throw new InferenceError(`${whereOf(ctx)}: updates dtype ${updates.dtype} differs from data ${x.dtype}`);
  ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
}

function defineScatterElements(type: 'ScatterElements' | 'Scatter', sinceVersion: number) {
  return defineOp({
    type,
    sinceVersion,
    inputs: [param.required('data', 'T'), param.required('indices', 'Tind'), param.required('updates', 'T')],
    outputs: [param.required('output', 'T')],
    attributes:
      type === 'Scatter'
        ? [{ name: 'axis', kind: 'int', default: { kind: 'int', value: 0 } }]
        : [{ name: 'axis', kind: 'int', default: { kind: 'int', value: 0 } }, REDUCTION],
    typeConstraints: TYPES,
    infer(ctx) {
      const x = requireInput(ctx, 0);
      const indices = requireInput(ctx, 1);
      if (!isUnknownRank(x.shape)) {
        normalizeAxis(ctx.attrs.int('axis', 0), x.shape.length, whereOf(ctx));
        if (!isUnknownRank(indices.shape) && indices.shape.length !== x.shape.length)
          throw new InferenceError(`${whereOf(ctx)}: data and indices ranks differ`);
      }
      inferSameAsData(ctx);
    },
  });
}

export const scatterElementsOp = defineScatterElements('ScatterElements', 18);
/** Scatter (deprecated since opset 11) has ScatterElements' semantics without reduction. */
export const scatterOp = defineScatterElements('Scatter', 11);

export const scatterNdOp = defineOp({
  type: 'ScatterND',
  sinceVersion: 18,
  inputs: [param.required('data', 'T'), param.required('indices', 'int64'), param.required('updates', 'T')],
  outputs: [param.required('output', 'T')],
  attributes: [REDUCTION],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer: (ctx) => inferSameAsData(ctx),
});

export const tensorScatterOp = defineOp({
  type: 'TensorScatter',
  sinceVersion: 24,
  inputs: [param.required('past_cache', 'T'), param.required('update', 'T'), param.optional('write_indices', 'int64')],
  outputs: [param.required('present_cache', 'T')],
  attributes: [
    { name: 'axis', kind: 'int', default: { kind: 'int', value: -2 } },
    { name: 'mode', kind: 'string', default: { kind: 'string', value: 'linear' } },
  ],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer(ctx) {
    const past = requireInput(ctx, 0);
    const update = requireInput(ctx, 1);
    if (update.dtype !== past.dtype) throw new InferenceError(`${whereOf(ctx)}: update dtype differs from past_cache`);
    const mode = ctx.attrs.string('mode', 'linear');
    if (mode !== 'linear' && mode !== 'circular') throw new InferenceError(`${whereOf(ctx)}: unknown mode '${mode}'`);
    if (!isUnknownRank(past.shape)) normalizeAxis(ctx.attrs.int('axis', -2), past.shape.length, whereOf(ctx));
    ctx.setOutput(0, { dtype: past.dtype, shape: past.shape });
  },
});

export const scatterOps = [scatterElementsOp, scatterOp, scatterNdOp, tensorScatterOp];
