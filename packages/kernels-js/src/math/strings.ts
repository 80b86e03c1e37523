/** String ops: StringNormalizer, StringConcat, StringSplit and RegexFullMatch. */
import type { KernelV1 } from '@tsge/metadef';
import { broadcastOrThrow } from '../common/math-binary.js';
import { planBroadcastRows } from '../common/math-broadcast-rows.js';
import { requireTensorOf } from '../common/math-values.js';
import { kernelError } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { compileFullMatch } from '@tsge/ops/kernel-support';

const STRING: readonly ['string'] = ['string'];

/** Inputs longer than this are not matched against a model's regex (bounds backtracking time). */
export const REGEX_MAX_INPUT_LENGTH = 10_000;

/** Python-style split: on runs of whitespace when `delimiter` is empty, else on the delimiter. */
export function splitString(text: string, delimiter: string, maxsplit: number): string[] {
  const limit = maxsplit < 0 ? Number.POSITIVE_INFINITY : maxsplit;
  const parts: string[] = [];
  if (delimiter === '') {
    let rest = text.replace(/^\s+/, '');
    while (rest.length > 0) {
      if (parts.length >= limit) {
        parts.push(rest);
        return parts;
      }
      const m = /\s+/.exec(rest);
      if (!m) {
        parts.push(rest);
        break;
      }
      parts.push(rest.slice(0, m.index));
      rest = rest.slice(m.index + m[0].length);
    }
    return parts;
  }
  let start = 0;
  while (parts.length < limit) {
    const at = text.indexOf(delimiter, start);
    if (at < 0) break;
    parts.push(text.slice(start, at));
    start = at + delimiter.length;
  }
  parts.push(text.slice(start));
  return parts;
}

export const stringKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'StringNormalizer',
    compute: (ctx) => {
      const x = requireTensorOf(ctx, 0, STRING);
      const action = ctx.attrs.string('case_change_action', 'NONE');
      const sensitive = ctx.attrs.int('is_case_sensitive', 0) !== 0;
      const stopwords = ctx.attrs.strings('stopwords', []);
      if (x.dims.length > 2 || (x.dims.length === 2 && x.dims[0] !== 1)) throw kernelError(ctx, 'input must be [C] or [1, C]');
      const stop = new Set(sensitive ? stopwords : stopwords.map((w) => w.toLowerCase()));
      const kept = (x.data as string[]).filter((s) => !stop.has(sensitive ? s : s.toLowerCase()));
      const changed = kept.map((s) => (action === 'LOWER' ? s.toLowerCase() : action === 'UPPER' ? s.toUpperCase() : s));
      // an all-filtered input gives one empty string, as the spec requires
      const result = changed.length === 0 ? [''] : changed;
      const dims = x.dims.length === 2 ? [1, result.length] : [result.length];
      const out = ctx.output(0, dims, 'string').data as string[];
      result.forEach((s, i) => {
        out[i] = s;
      });
    },
  }),
  defineKernel({
    opType: 'StringConcat',
    compute: (ctx) => {
      const a = requireTensorOf(ctx, 0, STRING);
      const b = requireTensorOf(ctx, 1, STRING);
      const dims = broadcastOrThrow(ctx, [a, b]);
      const plan = planBroadcastRows([a.dims, b.dims], dims);
      const out = ctx.output(0, dims, 'string').data as string[];
      const A = a.data as string[];
      const B = b.data as string[];
      const n = plan.rowLength;
      const [sa, sb] = plan.steps as [number, number];
      for (let r = 0; r < plan.rowCount; r++) {
        let ia = plan.offsets[0]![r]!;
        let ib = plan.offsets[1]![r]!;
        for (let k = 0; k < n; k++, ia += sa, ib += sb) out[r * n + k] = A[ia]! + B[ib]!;
      }
    },
  }),
  defineKernel({
    opType: 'StringSplit',
    compute: (ctx) => {
      const x = requireTensorOf(ctx, 0, STRING);
      const delimiter = ctx.attrs.string('delimiter', '');
      const maxsplit = ctx.attrs.has('maxsplit') ? ctx.attrs.int('maxsplit') : -1;
      const pieces = (x.data as string[]).map((s) => splitString(s, delimiter, maxsplit));
      const width = pieces.reduce((m, p) => Math.max(m, p.length), 0);
      const y = ctx.output(0, [...x.dims, width], 'string').data as string[];
      const z = ctx.output(1, x.dims, 'int64').data as BigInt64Array;
      pieces.forEach((p, i) => {
        z[i] = BigInt(p.length);
        for (let k = 0; k < width; k++) y[i * width + k] = p[k] ?? '';
      });
    },
  }),
  defineKernel({
    opType: 'RegexFullMatch',
    compute: (ctx) => {
      const x = requireTensorOf(ctx, 0, STRING);
      const regex = compileFullMatch(ctx.attrs.string('pattern'));
      if (!regex) throw kernelError(ctx, 'the pattern is not a valid regex');
      const out = ctx.output(0, x.dims, 'bool').data as Uint8Array;
      (x.data as string[]).forEach((s, i) => {
        if (s.length > REGEX_MAX_INPUT_LENGTH) throw kernelError(ctx, `input ${i} is longer than ${REGEX_MAX_INPUT_LENGTH} characters`);
        out[i] = regex.test(s) ? 1 : 0;
      });
    },
  }),
];
