/** ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare with axes as input, and ArgMax/ArgMin. */
import { type OpDefinitionV1, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inferReduceShape } from '../common/math-reduce-axes.js';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { NUMERIC, NUMERIC_AND_BOOL } from './op-types.js';

export type Kind = 'sum' | 'mean' | 'max' | 'min' | 'prod' | 'l1' | 'l2' | 'logsum' | 'logsumexp' | 'sumsquare';

export const REDUCE: readonly [string, Kind, number][] = [
  ['ReduceSum', 'sum', 13],
  ['ReduceMean', 'mean', 18],
  ['ReduceMax', 'max', 20],
  ['ReduceMin', 'min', 20],
  ['ReduceProd', 'prod', 18],
  ['ReduceL1', 'l1', 18],
  ['ReduceL2', 'l2', 18],
  ['ReduceLogSum', 'logsum', 18],
  ['ReduceLogSumExp', 'logsumexp', 18],
  ['ReduceSumSquare', 'sumsquare', 18],
];

export const reduceOps: readonly OpDefinitionV1[] = [
  ...REDUCE.map(([type, kind, sinceVersion]) =>
    defineOp({
      type,
      sinceVersion,
      inputs: [param.required('data', 'T'), param.optional('axes', 'int64')],
      outputs: [param.required('reduced', 'T')],
      attributes: [
        { name: 'keepdims', kind: 'int', default: { kind: 'int', value: 1 } },
        { name: 'noop_with_empty_axes', kind: 'int', default: { kind: 'int', value: 0 } },
      ],
      typeConstraints: [{ name: 'T', allowed: kind === 'max' || kind === 'min' ? NUMERIC_AND_BOOL : NUMERIC }],
      infer: (ctx) => {
        const x = requireInput(ctx, 0);
        ctx.setOutput(0, { dtype: x.dtype, shape: inferReduceShape(ctx, x.shape) });
      },
    }),
  ),
  ...['ArgMax', 'ArgMin'].map((type) =>
    defineOp({
      type,
      sinceVersion: 13,
      inputs: [param.required('data', 'T')],
      outputs: [param.required('reduced', 'int64')],
      attributes: [
        { name: 'axis', kind: 'int', default: { kind: 'int', value: 0 } },
        { name: 'keepdims', kind: 'int', default: { kind: 'int', value: 1 } },
        { name: 'select_last_index', kind: 'int', default: { kind: 'int', value: 0 } },
      ],
      typeConstraints: [{ name: 'T', allowed: NUMERIC }],
      infer: (ctx) => {
        const x = requireInput(ctx, 0);
        if (isUnknownRank(x.shape)) return ctx.setOutput(0, { dtype: 'int64', shape: x.shape });
        const rank = x.shape.length;
        const a = ctx.attrs.int('axis', 0);
        const axis = a < 0 ? a + rank : a;
        if (axis < 0 || axis >= rank) throw new InferenceError(`${type} ${ctx.nodeName}: axis ${a} out of range for rank ${rank}`);
        const keep = ctx.attrs.int('keepdims', 1) !== 0;
        const shape = x.shape.flatMap((d, i) => (i !== axis ? [d] : keep ? [1] : []));
        ctx.setOutput(0, { dtype: 'int64', shape });
      },
    }),
  ),
];
