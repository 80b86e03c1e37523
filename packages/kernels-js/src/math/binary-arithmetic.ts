/** Add, Sub, Mul, Div, Pow, Mod: numpy-broadcasting arithmetic over every numeric type. */
import type { KernelV1 } from '@tsge/metadef';
import type { BinaryImpl, NumberRow } from '@tsge/ops/kernel-support';
import { computeBinary } from '../common/math-binary.js';
import { defineKernel } from '../define.js';

const addRow: NumberRow = (a, ia, sa, b, ib, sb, out, o, n) => {
  if (sa === 1 && sb === 1) for (let k = 0; k < n; k++) out[o + k] = a[ia + k]! + b[ib + k]!;
  else for (let k = 0; k < n; k++, ia += sa, ib += sb) out[o + k] = a[ia]! + b[ib]!;
};
const subRow: NumberRow = (a, ia, sa, b, ib, sb, out, o, n) => {
  if (sa === 1 && sb === 1) for (let k = 0; k < n; k++) out[o + k] = a[ia + k]! - b[ib + k]!;
  else for (let k = 0; k < n; k++, ia += sa, ib += sb) out[o + k] = a[ia]! - b[ib]!;
};
const mulRow: NumberRow = (a, ia, sa, b, ib, sb, out, o, n) => {
  if (sa === 1 && sb === 1) for (let k = 0; k < n; k++) out[o + k] = a[ia + k]! * b[ib + k]!;
  else for (let k = 0; k < n; k++, ia += sa, ib += sb) out[o + k] = a[ia]! * b[ib]!;
};
const divRow: NumberRow = (a, ia, sa, b, ib, sb, out, o, n) => {
  if (sa === 1 && sb === 1) for (let k = 0; k < n; k++) out[o + k] = a[ia + k]! / b[ib + k]!;
  else for (let k = 0; k < n; k++, ia += sa, ib += sb) out[o + k] = a[ia]! / b[ib]!;
};

function floorMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}
function floorModBig(a: bigint, b: bigint): bigint {
  if (b === 0n) return 0n;
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
}
/** int64 power by squaring, wrapping at 64 bits like C integer arithmetic (never a huge BigInt). */
function powBig(a: bigint, b: bigint): bigint {
  if (b < 0n) return a === 1n ? 1n : a === -1n ? (b % 2n === 0n ? 1n : -1n) : 0n;
  let result = 1n;
  let base = BigInt.asIntN(64, a);
  let exponent = b;
  while (exponent > 0n) {
    if (exponent & 1n) result = BigInt.asIntN(64, result * base);
    base = BigInt.asIntN(64, base * base);
    exponent >>= 1n;
  }
  return result;
}

const IMPLS: Readonly<Record<string, BinaryImpl>> = {
  Add: { number: (a, b) => a + b, bigint: (a, b) => a + b, row: addRow },
  Sub: { number: (a, b) => a - b, bigint: (a, b) => a - b, row: subRow },
  Mul: { number: (a, b) => a * b, bigint: (a, b) => a * b, row: mulRow },
  Div: { number: (a, b) => a / b, bigint: (a, b) => (b === 0n ? 0n : a / b), row: divRow },
};

const powImpl: BinaryImpl = { number: Math.pow, bigint: powBig };
const fmodImpl: BinaryImpl = { number: (a, b) => a % b, bigint: (a, b) => (b === 0n ? 0n : a % b) };
const floorModImpl: BinaryImpl = { number: floorMod, bigint: floorModBig };

export const binaryArithmeticKernels: readonly KernelV1[] = [
  ...Object.entries(IMPLS).map(([opType, impl]) =>
    defineKernel({
      opType,
      inPlace: [
        [0, 0],
        [1, 0],
      ],
      compute: (ctx) => computeBinary(ctx, impl),
    }),
  ),
  defineKernel({ opType: 'Pow', compute: (ctx) => computeBinary(ctx, powImpl) }),
  defineKernel({
    opType: 'Mod',
    compute: (ctx) => computeBinary(ctx, ctx.attrs.int('fmod', 0) === 1 ? fmodImpl : floorModImpl),
  }),
];
