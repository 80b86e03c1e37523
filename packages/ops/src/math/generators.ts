/** Range, EyeLike and Bernoulli: ops that generate values rather than transform them. */
import { type OpDefinitionV1, InferenceError, isUnknownRank, readNumber } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { readTargetType } from './cast.js';
import { FLOATS, NUMERIC_AND_BOOL } from './op-types.js';

/** Element count of Range(start, limit, delta). */
export function rangeCount(start: number, limit: number, delta: number): number {
  if (delta === 0 || !Number.isFinite(start) || !Number.isFinite(limit) || Number.isNaN(delta)) return 0;
  return Math.max(Math.ceil((limit - start) / delta), 0);
}

export const generatorOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Range',
    sinceVersion: 11,
    inputs: [param.required('start', 'T'), param.required('limit', 'T'), param.required('delta', 'T')],
    outputs: [param.required('output', 'T')],
    typeConstraints: [{ name: 'T', allowed: ['float32', 'float64', 'int16', 'int32', 'int64'] }],
    infer: (ctx) => {
      const start = requireInput(ctx, 0);
      const values = [ctx.inputValue(0), ctx.inputValue(1), ctx.inputValue(2)];
      if (values.every((v) => v !== undefined)) {
        const [s, l, d] = values.map((v) => readNumber(v!, 0)) as [number, number, number];
        if (d === 0) throw new InferenceError(`Range ${ctx.nodeName}: delta must not be zero`);
        ctx.setOutput(0, { dtype: start.dtype, shape: [rangeCount(s, l, d)] });
      } else {
        ctx.setOutput(0, { dtype: start.dtype, shape: [ctx.newSymbol('range')] });
      }
    },
  }),
  defineOp({
    type: 'EyeLike',
    sinceVersion: 22,
    inputs: [param.required('input', 'T1')],
    outputs: [param.required('output', 'T2')],
    attributes: [
      { name: 'dtype', kind: 'int' },
      { name: 'k', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: NUMERIC_AND_BOOL },
      { name: 'T2', allowed: NUMERIC_AND_BOOL },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      if (!isUnknownRank(x.shape) && x.shape.length !== 2) throw new InferenceError(`EyeLike ${ctx.nodeName}: input must be 2-D`);
      ctx.setOutput(0, { dtype: readTargetType(ctx.attrs, 'dtype') ?? x.dtype, shape: x.shape });
    },
  }),
  defineOp({
    type: 'Bernoulli',
    sinceVersion: 22,
    inputs: [param.required('input', 'T1')],
    outputs: [param.required('output', 'T2')],
    attributes: [
      { name: 'dtype', kind: 'int' },
      { name: 'seed', kind: 'float' },
    ],
    typeConstraints: [
      { name: 'T1', allowed: FLOATS },
      { name: 'T2', allowed: NUMERIC_AND_BOOL },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      ctx.setOutput(0, { dtype: readTargetType(ctx.attrs, 'dtype') ?? x.dtype, shape: x.shape });
    },
  }),
];
