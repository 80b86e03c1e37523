/** Add, Sub, Mul, Div, Pow, Mod: numpy-broadcasting arithmetic over every numeric type. */
import type { DataType, InferenceContextV1, KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { InferenceError, broadcastShapes, isFloatType, isUnknownRank } from '@tsge/metadef';
import { type BinaryImpl, type NumberRow, computeBinary } from '../common/math-binary.js';
import { inferBroadcast, requireInput } from '../common/infer-helpers.js';
import { defineKernel, defineOp, param } from '../define.js';
import { NUMERIC } from './op-types.js';

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

/** Broadcast inference, honouring the pre-opset-7 `broadcast`/`axis` attributes; output `dtype` or A's. */
export function inferLegacyBroadcast(ctx: InferenceContextV1, dtype?: DataType): void {
  const a = requireInput(ctx, 0);
  const b = requireInput(ctx, 1);
  if (ctx.attrs.int('broadcast', 0) === 0 || !ctx.attrs.has('axis') || isUnknownRank(a.shape) || isUnknownRank(b.shape)) {
    inferBroadcast(ctx, dtype);
    return;
  }
  const raw = ctx.attrs.int('axis');
  const axis = raw < 0 ? raw + a.shape.length : raw;
  const trailing = a.shape.length - axis - b.shape.length;
  const shape = broadcastShapes(a.shape, trailing > 0 ? [...b.shape, ...new Array<number>(trailing).fill(1)] : b.shape);
  if (!shape) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: shapes do not broadcast at axis ${raw}`);
  ctx.setOutput(0, { dtype: dtype ?? a.dtype, shape });
}

const arithmeticInfer = (ctx: InferenceContextV1): void => inferLegacyBroadcast(ctx);

function arithmeticOp(type: string): OpDefinitionV1 {
  return defineOp({
    type,
    sinceVersion: 14,
    inputs: [param.required('A', 'T'), param.required('B', 'T')],
    outputs: [param.required('C', 'T')],
    typeConstraints: [{ name: 'T', allowed: NUMERIC }],
    infer: arithmeticInfer,
  });
}

export const binaryArithmeticOps: readonly OpDefinitionV1[] = [
  ...['Add', 'Sub', 'Mul', 'Div'].map(arithmeticOp),
  defineOp({
    type: 'Pow',
    sinceVersion: 15,
    inputs: [param.required('X', 'T'), param.required('Y', 'T1')],
    outputs: [param.required('Z', 'T')],
    typeConstraints: [
      { name: 'T', allowed: NUMERIC.filter((t) => t !== 'int8' && t !== 'int16' && !t.startsWith('uint')) },
      { name: 'T1', allowed: NUMERIC },
    ],
    infer: (ctx) => inferLegacyBroadcast(ctx),
  }),
  defineOp({
    type: 'Mod',
    sinceVersion: 13,
    inputs: [param.required('A', 'T'), param.required('B', 'T')],
    outputs: [param.required('C', 'T')],
    attributes: [{ name: 'fmod', kind: 'int', default: { kind: 'int', value: 0 } }],
    typeConstraints: [{ name: 'T', allowed: NUMERIC }],
    infer: (ctx) => {
      const a = requireInput(ctx, 0);
      if (isFloatType(a.dtype) && ctx.attrs.int('fmod', 0) !== 1) {
        throw new InferenceError(`Mod ${ctx.nodeName}: fmod must be 1 for floating point inputs`);
      }
      inferBroadcast(ctx);
    },
  }),
];

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
