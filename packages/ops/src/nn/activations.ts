/** Elementwise activations (ONNX latest): one hand-written loop per op keeps each hot loop monomorphic. */
import type { AttrReader, AttrSpec, OpDefinitionV1 } from '@tsge/metadef';
import { inferSameAsInput } from '../common/infer-helpers.js';
import { type FloatArray, NN_FLOAT_TYPES } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

type Loop = (x: FloatArray, y: FloatArray, attrs: AttrReader) => void;

interface Activation {
  readonly type: string;
  readonly sinceVersion: number;
  readonly attributes?: readonly AttrSpec[];
  readonly loop: Loop;
}

const float = (name: string, value: number): AttrSpec => ({ name, kind: 'float', default: { kind: 'float', value } });

function sigmoidOf(v: number): number {
  // split by sign so exp never overflows
  if (v >= 0) return 1 / (1 + Math.exp(-v));
  const e = Math.exp(v);
  return e / (1 + e);
}
function softplusOf(v: number): number {
  return v > 0 ? v + Math.log1p(Math.exp(-v)) : Math.log1p(Math.exp(v));
}
/** erf to ~1e-15: Taylor series near zero, erfc continued fraction further out. */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 2) {
    // Taylor series converges fast here
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let k = 1; k < 80; k++) {
      term *= (-x2 * (2 * k - 1)) / (k * (2 * k + 1));
      sum += term;
      if (Math.abs(term) < 1e-17 * Math.abs(sum)) break;
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  if (ax > 6) return x > 0 ? 1 : -1;
  // continued fraction for erfc (Lentz), fast for ax >= 2
  const erfc = erfcContinuedFraction(ax);
  return x > 0 ? 1 - erfc : erfc - 1;
}
function erfcContinuedFraction(x: number): number {
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + 2/(x + ...)))))
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 200; k++) {
    const a = k / 2;
    d = x + a * d;
    d = d === 0 ? tiny : 1 / d;
    c = x + a / c;
    if (c === 0) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

// ONNX stores these float attribute defaults as float32
const SELU_ALPHA = Math.fround(1.6732632423543772);
const SELU_GAMMA = Math.fround(1.0507009873554805);

export const ACTIVATIONS: readonly Activation[] = [
  {
    type: 'LeakyRelu',
    sinceVersion: 16,
    attributes: [float('alpha', 0.01)],
    loop: (x, y, a) => {
      const alpha = a.float('alpha', 0.01);
      for (let i = 0; i < x.length; i++) {
        const v = x[i] as number;
        y[i] = v >= 0 ? v : alpha * v;
      }
    },
  },
  {
    type: 'Elu',
    sinceVersion: 22,
    attributes: [float('alpha', 1)],
    loop: (x, y, a) => {
      const alpha = a.float('alpha', 1);
      for (let i = 0; i < x.length; i++) {
        const v = x[i] as number;
        y[i] = v >= 0 ? v : alpha * Math.expm1(v);
      }
    },
  },
  {
    type: 'Selu',
    sinceVersion: 22,
    attributes: [float('alpha', SELU_ALPHA), float('gamma', SELU_GAMMA)],
    loop: (x, y, a) => {
      const alpha = a.float('alpha', SELU_ALPHA);
      const gamma = a.float('gamma', SELU_GAMMA);
      for (let i = 0; i < x.length; i++) {
        const v = x[i] as number;
        y[i] = v > 0 ? gamma * v : gamma * alpha * Math.expm1(v);
      }
    },
  },
  {
    type: 'Celu',
    sinceVersion: 12,
    attributes: [float('alpha', 1)],
    loop: (x, y, a) => {
      const alpha = a.float('alpha', 1);
      for (let i = 0; i < x.length; i++) {
        const v = x[i] as number;
        y[i] = Math.max(0, v) + Math.min(0, alpha * Math.expm1(v / alpha));
      }
    },
  },
  {
    type: 'Gelu',
    sinceVersion: 20,
    attributes: [{ name: 'approximate', kind: 'string', default: { kind: 'string', value: 'none' } }],
    loop: (x, y, a) => {
      if (a.string('approximate', 'none') === 'tanh') {
        const k = Math.sqrt(2 / Math.PI);
        for (let i = 0; i < x.length; i++) {
          const v = x[i] as number;
          y[i] = 0.5 * v * (1 + Math.tanh(k * (v + 0.044715 * v * v * v)));
        }
      } else {
        for (let i = 0; i < x.length; i++) {
          const v = x[i] as number;
          y[i] = 0.5 * v * (1 + erf(v / Math.SQRT2));
        }
      }
    },
  },
  {
    type: 'Mish',
    sinceVersion: 22,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i] as number;
        y[i] = v * Math.tanh(softplusOf(v));
      }
    },
  },
  {
    type: 'Sigmoid',
    sinceVersion: 13,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) y[i] = sigmoidOf(x[i] as number);
    },
  },
  {
    type: 'HardSigmoid',
    sinceVersion: 22,
    attributes: [float('alpha', 0.2), float('beta', 0.5)],
    loop: (x, y, a) => {
      const alpha = a.float('alpha', 0.2);
      const beta = a.float('beta', 0.5);
      for (let i = 0; i < x.length; i++) y[i] = Math.max(0, Math.min(1, alpha * (x[i] as number) + beta));
    },
  },
  {
    type: 'HardSwish',
    sinceVersion: 22,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i] as number;
        y[i] = v * Math.max(0, Math.min(1, v / 6 + 0.5));
      }
    },
  },
  {
    type: 'Softplus',
    sinceVersion: 22,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) y[i] = softplusOf(x[i] as number);
    },
  },
  {
    type: 'Softsign',
    sinceVersion: 22,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) {
        const v = x[i] as number;
        y[i] = v / (1 + Math.abs(v));
      }
    },
  },
  {
    type: 'ThresholdedRelu',
    sinceVersion: 22,
    attributes: [float('alpha', 1)],
    loop: (x, y, a) => {
      const alpha = a.float('alpha', 1);
      for (let i = 0; i < x.length; i++) {
        const v = x[i] as number;
        y[i] = v > alpha ? v : 0;
      }
    },
  },
  {
    type: 'Tanh',
    sinceVersion: 13,
    loop: (x, y) => {
      for (let i = 0; i < x.length; i++) y[i] = Math.tanh(x[i] as number);
    },
  },
  {
    type: 'Swish',
    sinceVersion: 24,
    attributes: [float('alpha', 1)],
    loop: (x, y, a) => {
      const alpha = a.float('alpha', 1);
      for (let i = 0; i < x.length; i++) {
        const v = x[i] as number;
        y[i] = v * sigmoidOf(alpha * v);
      }
    },
  },
];

const floatConstraint = [{ name: 'T', allowed: NN_FLOAT_TYPES }];

/** Relu also takes signed integers (opset 14). */
const RELU_TYPES = [...NN_FLOAT_TYPES, 'int8', 'int16', 'int32', 'int64'] as const;

export const activationOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Relu',
    sinceVersion: 14,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T')],
    typeConstraints: [{ name: 'T', allowed: RELU_TYPES }],
    infer: inferSameAsInput,
  }),
  ...ACTIVATIONS.map((act) =>
    defineOp({
      type: act.type,
      sinceVersion: act.sinceVersion,
      inputs: [param.required('X', 'T')],
      outputs: [param.required('Y', 'T')],
      attributes: act.attributes ?? [],
      typeConstraints: floatConstraint,
      infer: inferSameAsInput,
    }),
  ),
];
