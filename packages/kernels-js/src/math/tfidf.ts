/** TfIdfVectorizer: counts n-grams (with skips) from a pool and weighs them as TF, IDF or TFIDF. */
import type { KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { outputWidth } from '@tsge/ops/kernel-support';

const SEPARATOR = '\u0000';

/** Maps each pool n-gram (items joined by NUL) to its ngram_indexes entry. */
function buildPool(pool: readonly string[], counts: readonly number[], indexes: readonly number[]): Map<string, number> | string {
  const map = new Map<string, number>();
  let id = 0;
  for (let g = 0; g < counts.length; g++) {
    const n = g + 1;
    const start = counts[g]!;
    const end = g + 1 < counts.length ? counts[g + 1]! : pool.length;
    if (start > end || end > pool.length || (end - start) % n !== 0)
      return `ngram_counts entry ${g} does not split the pool into ${n}-grams`;
    for (let p = start; p < end; p += n, id++) {
      if (id >= indexes.length) return 'ngram_indexes is shorter than the number of pool n-grams';
      map.set(pool.slice(p, p + n).join(SEPARATOR), indexes[id]!);
    }
  }
  return map;
}

export const tfidfKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'TfIdfVectorizer',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const minN = ctx.attrs.int('min_gram_length');
      const maxN = ctx.attrs.int('max_gram_length');
      const maxSkip = ctx.attrs.int('max_skip_count');
      const mode = ctx.attrs.string('mode');
      const indexes = ctx.attrs.ints('ngram_indexes');
      const weights = ctx.attrs.floats('weights', []);
      const pool = ctx.attrs.has('pool_strings') ? [...ctx.attrs.strings('pool_strings')] : ctx.attrs.ints('pool_int64s', []).map(String);
      if (minN < 1 || maxN < minN || maxSkip < 0) throw kernelError(ctx, 'invalid gram lengths or skip count');
      if (mode !== 'TF' && mode !== 'IDF' && mode !== 'TFIDF') throw kernelError(ctx, `unknown mode ${mode}`);
      const map = buildPool(pool, ctx.attrs.ints('ngram_counts'), indexes);
      if (typeof map === 'string') throw kernelError(ctx, map);
      if (x.dims.length === 0 || x.dims.length > 2) throw kernelError(ctx, 'input must be 1-D or 2-D');
      const rows = x.dims.length === 2 ? x.dims[0]! : 1;
      const cols = x.dims[x.dims.length - 1]!;
      const width = outputWidth(indexes);
      const items = Array.from(x.data as ArrayLike<unknown>, String);
      const out = ctx.output(0, x.dims.length === 2 ? [rows, width] : [width], 'float32').data as Float32Array;
      out.fill(0);
      const gram: string[] = [];
      for (let r = 0; r < rows; r++) {
        const base = r * cols;
        const row = out.subarray(r * width, (r + 1) * width);
        for (let skip = 0; skip <= maxSkip; skip++) {
          const step = skip + 1;
          for (let start = 0; start < cols; start++) {
            for (let n = minN; n <= maxN; n++) {
              // unigrams do not depend on the skip: count them once
              if (n === 1 && skip > 0) continue;
              if (start + (n - 1) * step >= cols) break;
              gram.length = 0;
              for (let t = 0; t < n; t++) gram.push(items[base + start + t * step]!);
              const index = map.get(gram.join(SEPARATOR));
              if (index !== undefined) row[index]!++;
            }
          }
        }
        for (let i = 0; i < width; i++) {
          const count = row[i]!;
          const weight = weights[i] ?? 1;
          row[i] = mode === 'TF' ? count : mode === 'IDF' ? (count > 0 ? weight : 0) : count * weight;
        }
      }
    },
  }),
];
