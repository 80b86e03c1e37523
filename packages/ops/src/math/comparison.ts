/** Equal, Less, LessOrEqual, Greater, GreaterOrEqual: broadcasting comparisons giving bool. */
// Each comparison has its own row loop so its call site stays monomorphic.
import type { KernelContextV1, KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { type BinaryImpl, broadcastOrThrow, computeBinary } from '../common/math-binary.js';
import { planBroadcastRows } from '../common/math-broadcast-rows.js';
import { requireTensor, requireTensorOf } from '../common/math-values.js';
import { defineKernel, defineOp, param } from '../define.js';
import { inferLegacyBroadcast } from './binary-arithmetic.js';
import { ALL_TYPES, NUMERIC_AND_BOOL } from './op-types.js';

const IMPLS: Readonly<Record<string, BinaryImpl>> = {
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

/** Equal on strings: element-wise identity of the broadcast operands. */
function equalStrings(ctx: KernelContextV1): void {
  const a = requireTensor(ctx, 0);
  const b = requireTensorOf(ctx, 1, ['string']);
  const dims = broadcastOrThrow(ctx, [a, b]);
  const plan = planBroadcastRows([a.dims, b.dims], dims);
  const out = ctx.output(0, dims, 'bool').data as Uint8Array;
  const A = a.data as string[];
  const B = b.data as string[];
  const n = plan.rowLength;
  const [sa, sb] = plan.steps as [number, number];
  for (let r = 0; r < plan.rowCount; r++) {
    let ia = plan.offsets[0]![r]!;
    let ib = plan.offsets[1]![r]!;
    for (let k = 0; k < n; k++, ia += sa, ib += sb) out[r * n + k] = A[ia] === B[ib] ? 1 : 0;
  }
}

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

export const comparisonKernels: readonly KernelV1[] = Object.entries(IMPLS).map(([opType, impl]) =>
  defineKernel({
    opType,
    compute: (ctx) => {
      if (opType === 'Equal' && ctx.tensor(0)?.type === 'string') equalStrings(ctx);
      else computeBinary(ctx, impl, 'bool');
    },
  }),
);
