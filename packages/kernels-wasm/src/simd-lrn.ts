import type { KernelContextV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { LRN_POWERS, type LrnPower, lrnAcross } from './lrn-module.js';
import { inMemory } from './simd-matmul.js';
import { tileFunction, runTiles, splitRange, type NumberTuple } from './tiles.js';

/**
 * LRN across channels of float32 [N, C, ...spatial]: y = x / (bias + alpha/size · Σ x²)^beta over
 * a window of channels. In device memory, for the common powers (0.75, 0.5, 1) and windows up to
 * 32 channels, whole vectors of positions run in WebAssembly SIMD (lrn-module.ts). Elsewhere the
 * window sum slides along the channels in float64 (one square added, one removed per element,
 * whatever the size), for a run of positions at a time so the running sums stay in L1.
 * Tiles split the spatial positions across threads.
 */
export function simdLrnKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'LRN',
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const x = ctx.tensor(0);
      const size = ctx.attrs.int('size');
      if (x?.type !== 'float32' || !(x.data instanceof Float32Array) || x.dims.length < 2 || !(size >= 1)) {
        return reference.compute(ctx);
      }
      const alpha = ctx.attrs.float('alpha', 0.0001);
      const beta = ctx.attrs.float('beta', 0.75);
      const bias = ctx.attrs.float('bias', 1);
      const n = x.dims[0] as number;
      const c = x.dims[1] as number;
      const spatial = x.dims.slice(2).reduce((p, d) => p * d, 1);
      const y = ctx.output(0, x.dims, 'float32');
      if (!(y.data instanceof Float32Array) || n * c * spatial === 0) return;
      const before = Math.floor((size - 1) / 2);
      const after = Math.ceil((size - 1) / 2);
      const scale = alpha / size;
      const memory = ctx.memory;
      if (!memory || !inMemory(memory, x, y)) {
        for (let b = 0; b < n; b++) lrnPositions(x.data, y.data, b * c * spatial, c, spatial, 0, spatial, before, after, scale, bias, beta);
        return;
      }
      const tiles: number[][] = [];
      const threads = ctx.parallel?.threads ?? 1;
      const image = c * spatial * 4;
      const [xAt, yAt] = [x.data.byteOffset, y.data.byteOffset];
      const tile = (b0: number, b1: number, s0: number, s1: number): void => {
        tiles.push([xAt + b0 * image, yAt + b0 * image, b1 - b0, c, spatial, s0, s1, before, after, scale, bias, beta]);
      };
      if (n >= 4 * threads) {
        // enough images to share out whole (and a bounded number of tiles for any batch)
        for (const [b0, b1] of splitRange(n, threads, 1, c * spatial * 8, 1 << 16)) tile(b0, b1, 0, spatial);
      } else {
        for (let b = 0; b < n; b++) for (const [s0, s1] of splitRange(spatial, threads, 16, c * 8, 1 << 16)) tile(b, b + 1, s0, s1);
      }
      runTiles(memory, ctx.parallel, lrnTile, tiles);
    },
  });
}

const LRN_TILE = 'js.lrn';

/** Tile: spatial positions [s0, s1) of every channel of `images` consecutive images. */
export const lrnTile = tileFunction(LRN_TILE, (memory: LinearMemory, t: readonly number[]) => {
  const [x, y, images, c, spatial, s0, s1, before, after, scale, bias, beta] = t as NumberTuple<12>;
  const simd = before + after < MAX_SIMD_WINDOW && isSimdPower(beta) ? lrnAcross(memory, beta) : undefined;
  for (let b = 0; b < images; b++) {
    const xAt = x + b * c * spatial * 4;
    const yAt = y + b * c * spatial * 4;
    let from = s0;
    if (simd) {
      // whole vectors in WebAssembly, a run of positions at a time so the window's planes stay in L1
      const vectorEnd = s0 + ((s1 - s0) & ~3);
      for (; from < vectorEnd; from += SIMD_CHUNK) {
        const to = Math.min(vectorEnd, from + SIMD_CHUNK);
        simd(xAt, yAt, c, spatial * 4, from * 4, to * 4, before, after, scale, bias);
      }
      from = vectorEnd;
    }
    if (from < s1) {
      const xs = new Float32Array(memory.buffer, xAt, c * spatial);
      const ys = new Float32Array(memory.buffer, yAt, c * spatial);
      lrnPositions(xs, ys, 0, c, spatial, from, s1, before, after, scale, bias, beta);
    }
  }
});

/** Windows up to this many channels are summed afresh in SIMD; wider ones slide in float64. */
const MAX_SIMD_WINDOW = 32;
const SIMD_CHUNK = 1024;
const isSimdPower = (beta: number): beta is LrnPower => (LRN_POWERS as readonly number[]).includes(beta);

/** Positions [s0, s1) of all channels of the image starting at `base`, in chunks of running sums. */
function lrnPositions(
  x: Float32Array,
  y: Float32Array,
  base: number,
  c: number,
  spatial: number,
  s0: number,
  s1: number,
  before: number,
  after: number,
  scale: number,
  bias: number,
  beta: number,
): void {
  const chunk = 1024;
  const sums = new Float64Array(Math.min(chunk, s1 - s0));
  for (let from = s0; from < s1; from += chunk) {
    const to = Math.min(s1, from + chunk);
    const count = to - from;
    sums.fill(0);
    // the window of channel 0 is channels [0, after]
    let finite = true;
    for (let k = 0; k <= after && k < c; k++) finite = addSquares(x, base + k * spatial + from, sums, count) && finite;
    for (let ch = 0; ch < c && finite; ch++) {
      if (ch > 0) {
        const entering = ch + after;
        const leaving = ch - before - 1;
        if (entering < c) finite = addSquares(x, base + entering * spatial + from, sums, count);
        if (leaving >= 0) {
          const first = Math.max(0, ch - before);
          const last = Math.min(c - 1, ch + after);
          removeSquares(x, base + leaving * spatial + from, sums, count, base + first * spatial + from, last - first + 1, spatial);
        }
      }
      writeChannel(x, y, base + ch * spatial + from, sums, count, scale, bias, beta);
    }
    // NaN or infinity cannot slide out of a running sum: sum each window afresh
    if (!finite) {
      for (let ch = 0; ch < c; ch++) {
        sums.fill(0);
        for (let k = Math.max(0, ch - before); k <= Math.min(c - 1, ch + after); k++) addSquares(x, base + k * spatial + from, sums, count);
        writeChannel(x, y, base + ch * spatial + from, sums, count, scale, bias, beta);
      }
    }
  }
}

function writeChannel(
  x: Float32Array,
  y: Float32Array,
  at: number,
  sums: Float64Array,
  count: number,
  scale: number,
  bias: number,
  beta: number,
): void {
  if (beta === 0.75) {
    for (let i = 0; i < count; i++) {
      const d = bias + scale * (sums[i] as number);
      y[at + i] = (x[at + i] as number) / Math.sqrt(d * Math.sqrt(d));
    }
  } else {
    for (let i = 0; i < count; i++) y[at + i] = (x[at + i] as number) / (bias + scale * (sums[i] as number)) ** beta;
  }
}

/** sums[i] += x[at + i]²; false when a square is NaN or infinite. */
function addSquares(x: Float32Array, at: number, sums: Float64Array, count: number): boolean {
  let finite = true;
  for (let i = 0; i < count; i++) {
    const v = x[at + i] as number;
    const square = v * v;
    if (!(square < Number.POSITIVE_INFINITY)) finite = false;
    sums[i] = (sums[i] as number) + square;
  }
  return finite;
}

/**
 * sums[i] −= x[at + i]². When that leaves a sum far below the square removed, the difference has
 * lost its digits to cancellation, so that sum is recomputed from the `channels` planes of the
 * window starting at `window`.
 */
function removeSquares(
  x: Float32Array,
  at: number,
  sums: Float64Array,
  count: number,
  window: number,
  channels: number,
  spatial: number,
): void {
  for (let i = 0; i < count; i++) {
    const v = x[at + i] as number;
    const square = v * v;
    let s = (sums[i] as number) - square;
    if (s * 16777216 < square) {
      s = 0;
      for (let k = 0; k < channels; k++) {
        const w = x[window + k * spatial + i] as number;
        s += w * w;
      }
    }
    sums[i] = s;
  }
}
