/** TfIdfVectorizer: counts n-grams (with skips) from a pool and weighs them as TF, IDF or TFIDF. */
import { type OpDefinitionV1, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';

export function outputWidth(indexes: readonly number[]): number {
  return indexes.reduce((m, v) => Math.max(m, v + 1), 0);
}

export const tfidfOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'TfIdfVectorizer',
    sinceVersion: 9,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T1')],
    attributes: [
      { name: 'max_gram_length', kind: 'int', required: true },
      { name: 'min_gram_length', kind: 'int', required: true },
      { name: 'max_skip_count', kind: 'int', required: true },
      { name: 'mode', kind: 'string', required: true },
      { name: 'ngram_counts', kind: 'ints', required: true },
      { name: 'ngram_indexes', kind: 'ints', required: true },
      { name: 'pool_int64s', kind: 'ints' },
      { name: 'pool_strings', kind: 'strings' },
      { name: 'weights', kind: 'floats' },
    ],
    typeConstraints: [
      { name: 'T', allowed: ['string', 'int32', 'int64'] },
      { name: 'T1', allowed: ['float32'] },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      const width = outputWidth(ctx.attrs.ints('ngram_indexes'));
      if (isUnknownRank(x.shape)) return ctx.setOutput(0, { dtype: 'float32', shape: [-2] });
      if (x.shape.length > 2 || x.shape.length === 0) throw new InferenceError(`TfIdfVectorizer ${ctx.nodeName}: input must be 1-D or 2-D`);
      ctx.setOutput(0, { dtype: 'float32', shape: x.shape.length === 2 ? [x.shape[0]!, width] : [width] });
    },
  }),
];
