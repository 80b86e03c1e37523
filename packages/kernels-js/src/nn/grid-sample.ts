/** GridSample (N-D, nearest/linear/cubic, zeros/border/reflection padding) and AffineGrid. */
import { type KernelV1, toNumberArray } from '@tsge/metadef';
import { dimProduct } from '@tsge/ops/kernel-support';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

const CUBIC_A = -0.75;

function cubicCoefficients(t: number, out: Float64Array): void {
  const x = Math.abs(t);
  out[0] = ((CUBIC_A * (x + 1) - 5 * CUBIC_A) * (x + 1) + 8 * CUBIC_A) * (x + 1) - 4 * CUBIC_A;
  out[1] = ((CUBIC_A + 2) * x - (CUBIC_A + 3)) * x * x + 1;
  out[2] = ((CUBIC_A + 2) * (1 - x) - (CUBIC_A + 3)) * (1 - x) * (1 - x) + 1;
  out[3] = ((CUBIC_A * (2 - x) - 5 * CUBIC_A) * (2 - x) + 8 * CUBIC_A) * (2 - x) - 4 * CUBIC_A;
}

/** Reflects x into [lo, hi] by folding at the borders. */
function reflect(x: number, lo: number, hi: number): number {
  const range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const dx = lo - x;
    const n = Math.trunc(dx / range);
    const r = dx - n * range;
    return n % 2 === 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const dx = x - hi;
    const n = Math.trunc(dx / range);
    const r = dx - n * range;
    return n % 2 === 0 ? hi - r : lo + r;
  }
  return x;
}

/** Round half to even (numpy rint). */
function rint(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

export const gridSampleKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'GridSample',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const gridT = requireTensor(ctx, 1);
      const rank = x.dims.length - 2;
      if (rank < 1 || gridT.dims.length !== rank + 2 || gridT.dims[rank + 1] !== rank || gridT.dims[0] !== x.dims[0]) {
        throw kernelError(ctx, `grid [${gridT.dims}] does not match X [${x.dims}]`);
      }
      const mode = ctx.attrs.string('mode', 'linear').replace(/^bi/, '');
      const padding = ctx.attrs.string('padding_mode', 'zeros');
      const align = ctx.attrs.int('align_corners', 0) !== 0;
      const batch = x.dims[0] as number;
      const channels = x.dims[1] as number;
      const spatial = x.dims.slice(2);
      const inSize = dimProduct(spatial);
      const outSpatial = gridT.dims.slice(1, -1);
      const outSize = dimProduct(outSpatial);
      const xs = readFloats(x);
      const grid = readFloats(gridT);
      const out = floatOutput(ctx, 0, [batch, channels, ...outSpatial], x.type);
      const tapsPerAxis = mode === 'nearest' ? 1 : mode === 'linear' ? 2 : 4;
      const tapIndex = new Int32Array(rank * tapsPerAxis);
      const tapWeight = new Float64Array(rank * tapsPerAxis);
      const coeffs = new Float64Array(4);
      const strides = new Array<number>(rank);
      let s = 1;
      for (let a = rank - 1; a >= 0; a--) {
        strides[a] = s;
        s *= spatial[a] as number;
      }
      const combos = tapsPerAxis ** rank;
      for (let n = 0; n < batch; n++)
        for (let o = 0; o < outSize; o++) {
          const gBase = (n * outSize + o) * rank;
          for (let a = 0; a < rank; a++) {
            const size = spatial[a] as number;
            // grid stores coordinates innermost-axis first
            const g = grid[gBase + rank - 1 - a] as number;
            let v = Math.fround(align ? ((g + 1) / 2) * (size - 1) : ((g + 1) * size - 1) / 2);
            if (mode === 'nearest') v = rint(v);
            const lo = align ? 0 : -0.5;
            const hi = align ? size - 1 : size - 0.5;
            if (v < lo || v > hi) {
              if (padding === 'border') v = Math.min(Math.max(v, 0), size - 1);
              else if (padding === 'reflection') v = reflect(v, lo, hi);
            }
            let first: number;
            if (mode === 'nearest') {
              first = Math.trunc(v);
              tapWeight[a * tapsPerAxis] = 1;
            } else if (mode === 'linear') {
              first = Math.floor(v);
              const t = v - first;
              tapWeight[a * tapsPerAxis] = 1 - t;
              tapWeight[a * tapsPerAxis + 1] = t;
            } else {
              const base = Math.floor(v);
              first = base - 1;
              cubicCoefficients(v - base, coeffs);
              for (let t = 0; t < 4; t++) tapWeight[a * tapsPerAxis + t] = coeffs[t] as number;
            }
            for (let t = 0; t < tapsPerAxis; t++) {
              let idx = first + t;
              if (idx < 0 || idx >= size) {
                if (padding === 'zeros') idx = -1;
                else if (padding === 'border') idx = Math.min(Math.max(idx, 0), size - 1);
                else idx = Math.trunc(reflect(idx, lo, hi));
              }
              tapIndex[a * tapsPerAxis + t] = idx;
            }
          }
          for (let c = 0; c < channels; c++) {
            const xBase = (n * channels + c) * inSize;
            let acc = 0;
            for (let combo = 0; combo < combos; combo++) {
              let rest = combo;
              let w = 1;
              let flat = 0;
              for (let a = rank - 1; a >= 0; a--) {
                const t = rest % tapsPerAxis;
                rest = (rest - t) / tapsPerAxis;
                const idx = tapIndex[a * tapsPerAxis + t] as number;
                if (idx < 0) {
                  w = 0;
                  break;
                }
                w *= tapWeight[a * tapsPerAxis + t] as number;
                flat += idx * (strides[a] as number);
              }
              if (w !== 0) acc += w * (xs[xBase + flat] as number);
            }
            out.data[(n * channels + c) * outSize + o] = acc;
          }
        }
      out.commit();
    },
  }),
  defineKernel({
    opType: 'AffineGrid',
    compute(ctx) {
      const thetaT = requireTensor(ctx, 0);
      const size = toNumberArray(requireTensor(ctx, 1));
      const rank = size.length - 2;
      if (rank !== 2 && rank !== 3) throw kernelError(ctx, `size must have 4 or 5 values, got ${size.length}`);
      const batch = size[0] as number;
      if (thetaT.dims.length !== 3 || thetaT.dims[0] !== batch || thetaT.dims[1] !== rank || thetaT.dims[2] !== rank + 1) {
        throw kernelError(ctx, `theta [${thetaT.dims}] must be [${batch}, ${rank}, ${rank + 1}]`);
      }
      const align = ctx.attrs.int('align_corners', 0) !== 0;
      const spatial = size.slice(2);
      const theta = readFloats(thetaT);
      const base = (len: number, i: number) => (align ? (len === 1 ? -1 : -1 + (2 * i) / (len - 1)) : (2 * i + 1) / len - 1);
      const count = dimProduct(spatial);
      const out = floatOutput(ctx, 0, [batch, ...spatial, rank], thetaT.type);
      const coord = new Float64Array(rank + 1);
      const idx = new Array<number>(rank).fill(0);
      for (let n = 0; n < batch; n++) {
        idx.fill(0);
        for (let p = 0; p < count; p++) {
          // homogeneous point (x, y[, z], 1): x runs along the last spatial axis
          for (let a = 0; a < rank; a++) coord[a] = base(spatial[rank - 1 - a] as number, idx[rank - 1 - a] as number);
          coord[rank] = 1;
          for (let r = 0; r < rank; r++) {
            let v = 0;
            for (let k = 0; k <= rank; k++) v += (theta[(n * rank + r) * (rank + 1) + k] as number) * (coord[k] as number);
            out.data[(n * count + p) * rank + r] = v;
          }
          for (let a = rank - 1; a >= 0; a--) {
            idx[a]++;
            if ((idx[a] as number) < (spatial[a] as number)) break;
            idx[a] = 0;
          }
        }
      }
      out.commit();
    },
  }),
];
