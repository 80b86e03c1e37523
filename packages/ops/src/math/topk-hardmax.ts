/** TopK (largest/smallest, sorted, ties broken by lower index) and Hardmax. */
import { type OpDefinitionV1, InferenceError, isUnknownRank, toNumberArray } from '@tsge/metadef';
import { inferSameAsInput, requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { FLOATS, NUMERIC } from './op-types.js';

export function normalizeAxis(axis: number, rank: number): number | undefined {
  const a = axis < 0 ? axis + rank : axis;
  return a >= 0 && a < rank ? a : undefined;
}

export const topkHardmaxOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'TopK',
    sinceVersion: 11,
    inputs: [param.required('X', 'T'), param.optional('K', 'int64')],
    outputs: [param.required('Values', 'T'), param.required('Indices', 'I')],
    attributes: [
      { name: 'axis', kind: 'int', default: { kind: 'int', value: -1 } },
      { name: 'largest', kind: 'int', default: { kind: 'int', value: 1 } },
      { name: 'sorted', kind: 'int', default: { kind: 'int', value: 1 } },
    ],
    typeConstraints: [
      { name: 'T', allowed: NUMERIC },
      { name: 'I', allowed: ['int64'] },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      if (isUnknownRank(x.shape)) {
        ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
        ctx.setOutput(1, { dtype: 'int64', shape: x.shape });
        return;
      }
      const axis = normalizeAxis(ctx.attrs.int('axis', -1), x.shape.length);
      if (axis === undefined) throw new InferenceError(`TopK ${ctx.nodeName}: axis out of range`);
      const kValue = ctx.inputValue(1);
      const k = kValue ? toNumberArray(kValue)[0]! : ctx.input(1) ? -1 : ctx.attrs.int('k', -1);
      const shape = x.shape.map((d, i) => (i === axis ? k : d));
      ctx.setOutput(0, { dtype: x.dtype, shape });
      ctx.setOutput(1, { dtype: 'int64', shape });
    },
  }),
  defineOp({
    type: 'Hardmax',
    sinceVersion: 13,
    inputs: [param.required('input', 'T')],
    outputs: [param.required('output', 'T')],
    attributes: [{ name: 'axis', kind: 'int', default: { kind: 'int', value: -1 } }],
    typeConstraints: [{ name: 'T', allowed: FLOATS }],
    infer: inferSameAsInput,
  }),
];
