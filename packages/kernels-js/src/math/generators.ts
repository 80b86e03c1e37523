/** Range, EyeLike and Bernoulli: ops that generate values rather than transform them. */
import { type KernelV1, readNumber } from '@tsge/metadef';
import { numberOutput, numbersOf } from '../common/math-values.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { readTargetType, rangeCount } from '@tsge/ops/kernel-support';

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
