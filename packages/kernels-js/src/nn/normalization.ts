/**
 * Normalizations: BatchNormalization (inference and training_mode), InstanceNormalization,
 * LayerNormalization, GroupNormalization, RMSNormalization, LRN, MeanVarianceNormalization and
 * LpNormalization. Statistics accumulate in float64 whatever the storage type.
 */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { broadcastIndexMap } from '../common/broadcast.js';
import { dimProduct, stashType } from '@tsge/ops/kernel-support';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

/** Mean and variance of [outer, size] rows; returns mean and 1/sqrt(var+eps). */
function rowStats(
  x: ArrayLike<number>,
  outer: number,
  size: number,
  epsilon: number,
  rms: boolean,
): { mean: Float64Array; invStd: Float64Array } {
  const mean = new Float64Array(outer);
  const invStd = new Float64Array(outer);
  for (let r = 0; r < outer; r++) {
    const base = r * size;
    let sum = 0;
    for (let i = 0; i < size; i++) sum += x[base + i] as number;
    const m = rms ? 0 : sum / size;
    let sq = 0;
    for (let i = 0; i < size; i++) {
      const d = (x[base + i] as number) - m;
      sq += d * d;
    }
    mean[r] = m;
    invStd[r] = 1 / Math.sqrt(sq / size + epsilon);
  }
  return { mean, invStd };
}

export const normalizationKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'BatchNormalization',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      if (x.dims.length < 1) throw kernelError(ctx, 'X must have rank >= 1');
      const xs = readFloats(x);
      const scale = readFloats(requireTensor(ctx, 1));
      const bias = readFloats(requireTensor(ctx, 2));
      const meanT = requireTensor(ctx, 3);
      const varT = requireTensor(ctx, 4);
      let mean: ArrayLike<number> = readFloats(meanT);
      let variance: ArrayLike<number> = readFloats(varT);
      const epsilon = ctx.attrs.float('epsilon', 1e-5);
      const n = x.dims[0] as number;
      const c = x.dims.length > 1 ? (x.dims[1] as number) : 1;
      const spatial = dimProduct(x.dims, 2);
      if (scale.length !== c || bias.length !== c || mean.length !== c || variance.length !== c)
        throw kernelError(ctx, `scale/B/mean/var must have ${c} elements`);
      const training = ctx.attrs.int('training_mode', 0) !== 0;
      if (training) {
        const batchMean = new Float64Array(c);
        const batchVar = new Float64Array(c);
        const count = n * spatial;
        for (let ch = 0; ch < c; ch++) {
          let sum = 0;
          for (let b = 0; b < n; b++) for (let i = 0; i < spatial; i++) sum += xs[(b * c + ch) * spatial + i] as number;
          const m = sum / count;
          let sq = 0;
          for (let b = 0; b < n; b++)
            for (let i = 0; i < spatial; i++) {
              const d = (xs[(b * c + ch) * spatial + i] as number) - m;
              sq += d * d;
            }
          batchMean[ch] = m;
          batchVar[ch] = sq / count;
        }
        const momentum = ctx.attrs.float('momentum', 0.9);
        if (ctx.outputCount > 1) {
          const rm = floatOutput(ctx, 1, meanT.dims, meanT.type);
          for (let ch = 0; ch < c; ch++) rm.data[ch] = (mean[ch] as number) * momentum + (batchMean[ch] as number) * (1 - momentum);
          rm.commit();
        }
        if (ctx.outputCount > 2) {
          const rv = floatOutput(ctx, 2, varT.dims, varT.type);
          for (let ch = 0; ch < c; ch++) rv.data[ch] = (variance[ch] as number) * momentum + (batchVar[ch] as number) * (1 - momentum);
          rv.commit();
        }
        mean = batchMean;
        variance = batchVar;
      }
      const out = floatOutput(ctx, 0, x.dims, x.type);
      const y = out.data;
      for (let b = 0; b < n; b++)
        for (let ch = 0; ch < c; ch++) {
          const k = (scale[ch] as number) / Math.sqrt((variance[ch] as number) + epsilon);
          const shift = (bias[ch] as number) - (mean[ch] as number) * k;
          const base = (b * c + ch) * spatial;
          for (let i = 0; i < spatial; i++) y[base + i] = (xs[base + i] as number) * k + shift;
        }
      out.commit();
    },
  }),
  defineKernel({
    opType: 'InstanceNormalization',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      if (x.dims.length < 2) throw kernelError(ctx, 'input must have rank >= 2');
      const xs = readFloats(x);
      const scale = readFloats(requireTensor(ctx, 1));
      const bias = readFloats(requireTensor(ctx, 2));
      const c = x.dims[1] as number;
      const planes = (x.dims[0] as number) * c;
      const size = dimProduct(x.dims, 2);
      const { mean, invStd } = rowStats(xs, planes, size, ctx.attrs.float('epsilon', 1e-5), false);
      const out = floatOutput(ctx, 0, x.dims, x.type);
      for (let p = 0; p < planes; p++) {
        const k = (scale[p % c] as number) * (invStd[p] as number);
        const shift = (bias[p % c] as number) - (mean[p] as number) * k;
        for (let i = p * size; i < (p + 1) * size; i++) out.data[i] = (xs[i] as number) * k + shift;
      }
      out.commit();
    },
  }),
  defineKernel({
    opType: 'LayerNormalization',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const rank = x.dims.length;
      const axis = kernelAxis(ctx, rank);
      const outer = dimProduct(x.dims, 0, axis);
      const size = dimProduct(x.dims, axis);
      const xs = readFloats(x);
      const { mean, invStd } = rowStats(xs, outer, size, ctx.attrs.float('epsilon', 1e-5), false);
      const scaleT = requireTensor(ctx, 1);
      const scale = readFloats(scaleT);
      const biasT = hasInput(ctx, 2) ? requireTensor(ctx, 2) : undefined;
      const bias = biasT ? readFloats(biasT) : undefined;
      const sMap = broadcastIndexMap(scaleT.dims, x.dims);
      const bMap = biasT ? broadcastIndexMap(biasT.dims, x.dims) : undefined;
      const out = floatOutput(ctx, 0, x.dims, x.type);
      for (let r = 0; r < outer; r++) {
        const m = mean[r] as number;
        const inv = invStd[r] as number;
        for (let i = r * size; i < (r + 1) * size; i++) {
          const norm = ((xs[i] as number) - m) * inv;
          out.data[i] = norm * (scale[sMap[i] as number] as number) + (bias && bMap ? (bias[bMap[i] as number] as number) : 0);
        }
      }
      out.commit();
      const statDims = x.dims.map((d, i) => (i < axis ? d : 1));
      const stash = stashType(x.type);
      if (ctx.outputCount > 1) {
        const m = floatOutput(ctx, 1, statDims, stash);
        m.data.set(mean);
        m.commit();
      }
      if (ctx.outputCount > 2) {
        const s = floatOutput(ctx, 2, statDims, stash);
        s.data.set(invStd);
        s.commit();
      }
    },
  }),
  defineKernel({
    opType: 'GroupNormalization',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      if (x.dims.length < 2) throw kernelError(ctx, 'X must have rank >= 2');
      const groups = ctx.attrs.int('num_groups');
      const n = x.dims[0] as number;
      const c = x.dims[1] as number;
      if (groups <= 0 || c % groups !== 0) throw kernelError(ctx, `num_groups ${groups} does not divide ${c} channels`);
      const spatial = dimProduct(x.dims, 2);
      const perGroup = (c / groups) * spatial;
      const xs = readFloats(x);
      const { mean, invStd } = rowStats(xs, n * groups, perGroup, ctx.attrs.float('epsilon', 1e-5), false);
      const scale = readFloats(requireTensor(ctx, 1));
      const bias = readFloats(requireTensor(ctx, 2));
      // opset 18 gave scale/bias per group; opset 21 per channel
      const perChannel = scale.length === c;
      const out = floatOutput(ctx, 0, x.dims, x.type);
      for (let b = 0; b < n; b++)
        for (let ch = 0; ch < c; ch++) {
          const grp = Math.floor(ch / (c / groups));
          const row = b * groups + grp;
          const sIndex = perChannel ? ch : grp;
          const k = (scale[sIndex] as number) * (invStd[row] as number);
          const shift = (bias[sIndex] as number) - (mean[row] as number) * k;
          const base = (b * c + ch) * spatial;
          for (let i = base; i < base + spatial; i++) out.data[i] = (xs[i] as number) * k + shift;
        }
      out.commit();
    },
  }),
  defineKernel({
    opType: 'RMSNormalization',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const rank = x.dims.length;
      const axis = kernelAxis(ctx, rank);
      const outer = dimProduct(x.dims, 0, axis);
      const size = dimProduct(x.dims, axis);
      const xs = readFloats(x);
      const { invStd } = rowStats(xs, outer, size, ctx.attrs.float('epsilon', 1e-5), true);
      const scaleT = requireTensor(ctx, 1);
      const scale = readFloats(scaleT);
      const sMap = broadcastIndexMap(scaleT.dims, x.dims);
      const out = floatOutput(ctx, 0, x.dims, scaleT.type);
      for (let r = 0; r < outer; r++) {
        const inv = invStd[r] as number;
        for (let i = r * size; i < (r + 1) * size; i++) out.data[i] = (xs[i] as number) * inv * (scale[sMap[i] as number] as number);
      }
      out.commit();
    },
  }),
  defineKernel({
    opType: 'LRN',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      if (x.dims.length < 2) throw kernelError(ctx, 'X must have rank >= 2');
      const size = ctx.attrs.int('size');
      const alpha = ctx.attrs.float('alpha', 0.0001);
      const beta = ctx.attrs.float('beta', 0.75);
      const bias = ctx.attrs.float('bias', 1);
      const n = x.dims[0] as number;
      const c = x.dims[1] as number;
      const spatial = dimProduct(x.dims, 2);
      const before = Math.floor((size - 1) / 2);
      const after = Math.ceil((size - 1) / 2);
      const xs = readFloats(x);
      const out = floatOutput(ctx, 0, x.dims, x.type);
      for (let b = 0; b < n; b++)
        for (let ch = 0; ch < c; ch++) {
          const lo = Math.max(0, ch - before);
          const hi = Math.min(c - 1, ch + after);
          for (let i = 0; i < spatial; i++) {
            let sq = 0;
            for (let k = lo; k <= hi; k++) {
              const v = xs[(b * c + k) * spatial + i] as number;
              sq += v * v;
            }
            const idx = (b * c + ch) * spatial + i;
            out.data[idx] = (xs[idx] as number) / (bias + (alpha / size) * sq) ** beta;
          }
        }
      out.commit();
    },
  }),
  defineKernel({
    opType: 'MeanVarianceNormalization',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const rank = x.dims.length;
      const axes = ctx.attrs.ints('axes', [0, 2, 3]).map((a) => (a < 0 ? a + rank : a));
      if (axes.some((a) => a < 0 || a >= rank)) throw kernelError(ctx, `axes out of range for rank ${rank}`);
      // kept dims are 1 on reduced axes; map every element to its group
      const keptDims = x.dims.map((d, i) => (axes.includes(i) ? 1 : d));
      const groupOf = broadcastIndexMap(keptDims, x.dims);
      const groups = dimProduct(keptDims);
      const count = dimProduct(x.dims) / Math.max(1, groups);
      const xs = readFloats(x);
      const sum = new Float64Array(groups);
      for (let i = 0; i < xs.length; i++) sum[groupOf[i] as number] += xs[i] as number;
      const sq = new Float64Array(groups);
      for (let i = 0; i < xs.length; i++) {
        const d = (xs[i] as number) - (sum[groupOf[i] as number] as number) / count;
        sq[groupOf[i] as number] += d * d;
      }
      const out = floatOutput(ctx, 0, x.dims, x.type);
      for (let i = 0; i < xs.length; i++) {
        const g = groupOf[i] as number;
        out.data[i] = ((xs[i] as number) - (sum[g] as number) / count) / (Math.sqrt((sq[g] as number) / count) + 1e-9);
      }
      out.commit();
    },
  }),
  defineKernel({
    opType: 'LpNormalization',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const rank = x.dims.length;
      const axis = kernelAxis(ctx, rank);
      const p = ctx.attrs.int('p', 2);
      if (p !== 1 && p !== 2) throw kernelError(ctx, `p must be 1 or 2, got ${p}`);
      const outer = dimProduct(x.dims, 0, axis);
      const size = x.dims[axis] as number;
      const inner = dimProduct(x.dims, axis + 1);
      const xs = readFloats(x);
      const out = floatOutput(ctx, 0, x.dims, x.type);
      for (let o = 0; o < outer; o++)
        for (let k = 0; k < inner; k++) {
          const base = o * size * inner + k;
          let norm = 0;
          for (let j = 0; j < size; j++) {
            const v = xs[base + j * inner] as number;
            norm += p === 1 ? Math.abs(v) : v * v;
          }
          if (p === 2) norm = Math.sqrt(norm);
          for (let j = 0; j < size; j++) out.data[base + j * inner] = norm === 0 ? 0 : (xs[base + j * inner] as number) / norm;
        }
      out.commit();
    },
  }),
];

/** The `axis` attribute (default -1) as a non-negative axis of a rank-`rank` input. */
function kernelAxis(ctx: KernelContextV1, rank: number): number {
  const given = ctx.attrs.int('axis', -1);
  const axis = given < 0 ? given + rank : given;
  if (axis < 0 || axis >= rank) throw kernelError(ctx, `axis ${given} out of range for rank ${rank}`);
  return axis;
}
