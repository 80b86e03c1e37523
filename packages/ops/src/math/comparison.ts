/** Equal, Less, LessOrEqual, Greater, GreaterOrEqual: broadcasting comparisons giving bool. */
// Each comparison has its own row loop so its call site stays monomorphic.
import type { OpDefinitionV1 } from '@tsge/metadef';
import type { BinaryImpl } from '../common/math-binary.js';
import { defineOp, param } from '../define.js';
import { inferLegacyBroadcast } from './binary-arithmetic.js';
import { ALL_TYPES, NUMERIC_AND_BOOL } from './op-types.js';

export const IMPLS: Readonly<Record<string, BinaryImpl>> = {
  Equal: {
    number: (a, b) => (a === b ? 1 : 0),
    bigintPredicate: (a, b) => a === b,
    row: (a, ia, sa, b, ib, sb, out, o, n) => {
      for (let k = 0; k < n; k++, ia += sa, ib += sb) out[o + k] = a[ia]! === b[ib]! ? 1 : 0;
    },
  },
  Less: {
    number: (a, b) => (a < b ? 1 : 0),
    bigintPredicate: (a, b) => a < b,
    row: (a, ia, sa, b, ib, sb, out, o, n) => {
      for (let k = 0; k < n; k++, ia += sa, ib += sb) out[o + k] = a[ia]! < b[ib]! ? 1 : 0;
    },
  },
  LessOrEqual: {
    number: (a, b) => (a <= b ? 1 : 0),
    bigintPredicate: (a, b) => a <= b,
    row: (a, ia, sa, b, ib, sb, out, o, n) => {
      for (let k = 0; k < n; k++, ia += sa, ib += sb) out[o + k] = a[ia]! <= b[ib]! ? 1 : 0;
    },
  },
  Greater: {
    number: (a, b) => (a > b ? 1 : 0),
    bigintPredicate: (a, b) => a > b,
    row: (a, ia, sa, b, ib, sb, out, o, n) => {
      for (let k = 0; k < n; k++, ia += sa, ib += sb) out[o + k] = a[ia]! > b[ib]! ? 1 : 0;
    },
  },
  GreaterOrEqual: {
    number: (a, b) => (a >= b ? 1 : 0),
    bigintPredicate: (a, b) => a >= b,
    row: (a, ia, sa, b, ib, sb, out, o, n) => {
      for (let k = 0; k < n; k++, ia += sa, ib += sb) out[o + k] = a[ia]! >= b[ib]! ? 1 : 0;
    },
  },
};

export const comparisonOps: readonly OpDefinitionV1[] = Object.keys(IMPLS).map((type) =>
  defineOp({
    type,
    sinceVersion: type === 'Equal' ? 19 : type.endsWith('OrEqual') ? 16 : 13,
    inputs: [param.required('A', 'T'), param.required('B', 'T')],
    outputs: [param.required('C', 'T1')],
    typeConstraints: [
      { name: 'T', allowed: type === 'Equal' ? ALL_TYPES : NUMERIC_AND_BOOL },
      { name: 'T1', allowed: ['bool'] },
    ],
    infer: (ctx) => inferLegacyBroadcast(ctx, 'bool'),
  }),
);
