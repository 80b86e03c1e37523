/** Range, EyeLike and Bernoulli: ops that generate values rather than transform them. */
import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { InferenceError, isUnknownRank, readNumber } from '@tsge/metadef';
import { kernelError, numberOutput, numbersOf, requireTensor } from '../common/math-values.js';
import { requireInput } from '../common/infer-helpers.js';
import { defineKernel, defineOp, param } from '../define.js';
import { readTargetType } from './cast.js';
import { FLOATS, NUMERIC_AND_BOOL } from './op-types.js';

/** Element count of Range(start, limit, delta). */
export function rangeCount(start: number, limit: number, delta: number): number {
  if (delta === 0 || !Number.isFinite(start) || !Number.isFinite(limit) || Number.isNaN(delta)) return 0;
  return Math.max(Math.ceil((limit - start) / delta), 0);
}

/** A small seeded generator (mulberry32) so Bernoulli with a seed is reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MAX_RANGE = 2 ** 28;

export const generatorOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Range',
    sinceVersion: 11,
    inputs: [param.required('start', 'T'), param.required('limit', 'T'), param.required('delta', 'T')],
    outputs: [param.required('output', 'T')],
    typeConstraints: [{ name: 'T', allowed: ['float32', 'float64', 'int16', 'int32', 'int64'] }],
    infer: (ctx) => {
      const start = requireInput(ctx, 0);
      const values = [ctx.inputValue(0), ctx.inputValue(1), ctx.inputValue(2)];
      if (values.every((v) => v !== undefined)) {
        const [s, l, d] = values.map((v) => readNumber(v!, 0)) as [number, number, number];
        if (d === 0) throw new InferenceError(`Range ${ctx.nodeName}: delta must not be zero`);
        ctx.setOutput(0, { dtype: start.dtype, shape: [rangeCount(s, l, d)] });
      } else {
        ctx.setOutput(0, { dtype: start.dtype, shape: [ctx.newSymbol('range')] });
      }
    },
  }),
  defineOp({
    type: 'EyeLike',
    sinceVersion: 22,
    inputs: [param.required('input', 'T1')],
    outputs: [param.required('output', 'T2')],
    attributes: [
      { name: 'dtype', kind: 'int' },
      { name: 'k', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: NUMERIC_AND_BOOL },
      { name: 'T2', allowed: NUMERIC_AND_BOOL },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      if (!isUnknownRank(x.shape) && x.shape.length !== 2) throw new InferenceError(`EyeLike ${ctx.nodeName}: input must be 2-D`);
      ctx.setOutput(0, { dtype: readTargetType(ctx.attrs, 'dtype') ?? x.dtype, shape: x.shape });
    },
  }),
  defineOp({
    type: 'Bernoulli',
    sinceVersion: 22,
    inputs: [param.required('input', 'T1')],
    outputs: [param.required('output', 'T2')],
    attributes: [
      { name: 'dtype', kind: 'int' },
      { name: 'seed', kind: 'float' },
    ],
    typeConstraints: [
      { name: 'T1', allowed: FLOATS },
      { name: 'T2', allowed: NUMERIC_AND_BOOL },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      ctx.setOutput(0, { dtype: readTargetType(ctx.attrs, 'dtype') ?? x.dtype, shape: x.shape });
    },
  }),
];

export const generatorKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'Range',
    compute: (ctx) => {
      const start = requireTensor(ctx, 0);
      const [s, l, d] = [0, 1, 2].map((i) => readNumber(requireTensor(ctx, i), 0)) as [number, number, number];
      if (d === 0) throw kernelError(ctx, 'delta must not be zero');
      const n = rangeCount(s, l, d);
      if (!Number.isFinite(n) || n > MAX_RANGE) throw kernelError(ctx, `range of ${n} elements is too large or undefined`);
      const out = numberOutput(ctx, 0, [n], start.type);
      for (let i = 0; i < n; i++) out.values[i] = s + i * d;
      out.commit();
    },
  }),
  defineKernel({
    opType: 'EyeLike',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      if (x.dims.length !== 2) throw kernelError(ctx, 'input must be 2-D');
      const [rows, cols] = x.dims as [number, number];
      const k = ctx.attrs.int('k', 0);
      const out = numberOutput(ctx, 0, x.dims, readTargetType(ctx.attrs, 'dtype') ?? x.type);
      out.values.fill(0);
      for (let i = 0; i < rows; i++) {
        const j = i + k;
        if (j >= 0 && j < cols) out.values[i * cols + j] = 1;
      }
      out.commit();
    },
  }),
  defineKernel({
    opType: 'Bernoulli',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const random = ctx.attrs.has('seed') ? seededRandom(Math.floor(ctx.attrs.float('seed'))) : Math.random;
      const p = numbersOf(x);
      const out = numberOutput(ctx, 0, x.dims, readTargetType(ctx.attrs, 'dtype') ?? x.type);
      for (let i = 0; i < p.length; i++) out.values[i] = random() < p[i]! ? 1 : 0;
      out.commit();
    },
  }),
];
