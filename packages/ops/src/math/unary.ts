/** Elementwise unary math: Abs, Neg, Sign, Reciprocal, Floor, Ceil, Round, Sqrt, Exp, Log, Erf, trigonometry, IsNaN, IsInf. */
import type { DataType, OpDefinitionV1 } from '@tsge/metadef';
import type { NumberArray } from '../common/math-values.js';
import { inferSameAsInput, requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { FLOATS, NUMERIC, SIGNED_NUMERIC } from './op-types.js';

/** Round half to even (banker's rounding), as ONNX Round requires. */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** erf(x) by Abramowitz & Stegun 7.1.26 refined with one series term pair; |error| < 2e-7. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return x;
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  if (a < 0.5) {
    // Maclaurin series converges fast near zero and keeps relative precision
    const x2 = a * a;
    let term = a;
    let sum = a;
    for (let n = 1; n < 20; n++) {
      term *= -x2 / n;
      sum += term / (2 * n + 1);
    }
    return (sign * 2 * sum) / Math.sqrt(Math.PI);
  }
  const t = 1 / (1 + 0.3275911 * a);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a);
  return sign * y;
}

export interface UnaryDef {
  readonly type: string;
  readonly sinceVersion: number;
  readonly types: readonly DataType[];
  /** y[i] = op(x[i]) over the whole array. */
  readonly loop: (x: NumberArray, y: NumberArray) => void;
  readonly big?: (x: bigint) => bigint;
  /** Output dtype when it is not the input's. */
  readonly out?: DataType;
}

// each op has its own loop so every call site stays monomorphic (a shared loop calling `f` is ~3x slower)
export const UNARY: readonly UnaryDef[] = [
  {
    type: 'Abs',
    sinceVersion: 13,
    types: NUMERIC,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.abs(v);
      }
    },
    big: (x) => (x < 0n ? -x : x),
  },
  {
    type: 'Neg',
    sinceVersion: 13,
    types: SIGNED_NUMERIC,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = -v;
      }
    },
    big: (x) => -x,
  },
  {
    type: 'Sign',
    sinceVersion: 13,
    types: NUMERIC,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = v > 0 ? 1 : v < 0 ? -1 : v === 0 ? 0 : Number.NaN;
      }
    },
    big: (x) => (x > 0n ? 1n : x < 0n ? -1n : 0n),
  },
  {
    type: 'Reciprocal',
    sinceVersion: 13,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = 1 / v;
      }
    },
  },
  {
    type: 'Floor',
    sinceVersion: 13,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.floor(v);
      }
    },
  },
  {
    type: 'Ceil',
    sinceVersion: 13,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.ceil(v);
      }
    },
  },
  {
    type: 'Round',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = roundHalfEven(v);
      }
    },
  },
  {
    type: 'Sqrt',
    sinceVersion: 13,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.sqrt(v);
      }
    },
  },
  {
    type: 'Exp',
    sinceVersion: 13,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.exp(v);
      }
    },
  },
  {
    type: 'Log',
    sinceVersion: 13,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.log(v);
      }
    },
  },
  {
    type: 'Erf',
    sinceVersion: 13,
    types: NUMERIC,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = erf(v);
      }
    },
  },
  {
    type: 'Sin',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.sin(v);
      }
    },
  },
  {
    type: 'Cos',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.cos(v);
      }
    },
  },
  {
    type: 'Tan',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.tan(v);
      }
    },
  },
  {
    type: 'Asin',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.asin(v);
      }
    },
  },
  {
    type: 'Acos',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.acos(v);
      }
    },
  },
  {
    type: 'Atan',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.atan(v);
      }
    },
  },
  {
    type: 'Sinh',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.sinh(v);
      }
    },
  },
  {
    type: 'Cosh',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.cosh(v);
      }
    },
  },
  {
    type: 'Asinh',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.asinh(v);
      }
    },
  },
  {
    type: 'Acosh',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.acosh(v);
      }
    },
  },
  {
    type: 'Atanh',
    sinceVersion: 22,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Math.atanh(v);
      }
    },
  },
  {
    type: 'IsNaN',
    sinceVersion: 20,
    types: FLOATS,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!;
        y[i] = Number.isNaN(v) ? 1 : 0;
      }
    },
    out: 'bool',
  },
];

export const unaryOps: readonly OpDefinitionV1[] = [
  ...UNARY.map((def) =>
    defineOp({
      type: def.type,
      sinceVersion: def.sinceVersion,
      inputs: [param.required('X', 'T')],
      outputs: [param.required('Y', def.out ? 'T1' : 'T')],
      typeConstraints: [{ name: 'T', allowed: def.types }, ...(def.out ? [{ name: 'T1', allowed: [def.out] }] : [])],
      infer: def.out
        ? (ctx) => {
            const x = requireInput(ctx, 0);
            ctx.setOutput(0, { dtype: def.out!, shape: x.shape });
          }
        : inferSameAsInput,
    }),
  ),
  defineOp({
    type: 'IsInf',
    sinceVersion: 20,
    inputs: [param.required('X', 'T1')],
    outputs: [param.required('Y', 'T2')],
    attributes: [
      { name: 'detect_negative', kind: 'int', default: { kind: 'int', value: 1 } },
      { name: 'detect_positive', kind: 'int', default: { kind: 'int', value: 1 } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: FLOATS },
      { name: 'T2', allowed: ['bool'] },
    ],
    infer: (ctx) => ctx.setOutput(0, { dtype: 'bool', shape: requireInput(ctx, 0).shape }),
  }),
];
