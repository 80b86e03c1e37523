import type { HostTensor, KernelContextV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { layerNormRows } from './layer-norm-module.js';
import { inMemory } from './simd-matmul.js';
import { tileFunction, runTiles, splitRange, type NumberTuple } from './tiles.js';

/** Dims without leading 1s (broadcasting a scale over the normalized axes ignores them). */
const trimmed = (dims: readonly number[]): readonly number[] =>
  dims.slice(
    Math.max(
      0,
      dims.findIndex((d) => d !== 1),
    ),
  );

/** Whether `t` is float32 covering exactly the normalized axes `inner`. */
function coversRow(t: HostTensor | undefined, inner: readonly number[], size: number): t is HostTensor & { data: Float32Array } {
  if (!t || !(t.data instanceof Float32Array) || t.data.length !== size) return false;
  const a = trimmed(t.dims);
  const b = trimmed(inner);
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/**
 * LayerNormalization of float32 when scale (and bias) cover the whole normalized row: every axis
 * from `axis` on is one contiguous row. In device memory rows run in WebAssembly SIMD
 * (layer-norm-module.ts) split across threads; on the host, or with the Mean/InvStdDev outputs,
 * in tight JavaScript loops with float64 statistics. Broadcast scales, other dtypes and bad axes
 * go to the reference kernel.
 */
export function simdLayerNormKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'LayerNormalization',
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const x = ctx.tensor(0);
      if (x?.type !== 'float32' || !(x.data instanceof Float32Array)) return reference.compute(ctx);
      const rank = x.dims.length;
      const given = ctx.attrs.int('axis', -1);
      const axis = given < 0 ? given + rank : given;
      if (!(axis >= 0 && axis < rank)) return reference.compute(ctx);
      const inner = x.dims.slice(axis);
      const size = inner.reduce((p, d) => p * d, 1);
      const rows = x.dims.slice(0, axis).reduce((p, d) => p * d, 1);
      const scale = ctx.tensor(1);
      const bias = ctx.inputCount > 2 ? ctx.tensor(2) : undefined;
      if (!coversRow(scale, inner, size) || (bias && !coversRow(bias, inner, size)) || size === 0) return reference.compute(ctx);
      const epsilon = ctx.attrs.float('epsilon', 1e-5);
      const y = ctx.output(0, x.dims, 'float32');
      if (!(y.data instanceof Float32Array)) return reference.compute(ctx);
      const statDims = x.dims.map((d, i) => (i < axis ? d : 1));
      const mean = ctx.outputCount > 1 ? ctx.output(1, statDims, 'float32').data : undefined;
      const invStd = ctx.outputCount > 2 ? ctx.output(2, statDims, 'float32').data : undefined;
      const memory = ctx.memory;
      if (mean || invStd || !memory || !inMemory(memory, x, y, scale, ...(bias ? [bias] : []))) {
        normalizeRows(
          x.data,
          y.data,
          scale.data,
          bias?.data as Float32Array | undefined,
          0,
          rows,
          size,
          epsilon,
          stats(mean),
          stats(invStd),
        );
        return;
      }
      const xAt = x.data.byteOffset;
      const yAt = y.data.byteOffset;
      const tiles = splitRange(rows, ctx.parallel?.threads ?? 1, 1, size * 6, 1 << 16).map(([r0, r1]) => [
        xAt,
        yAt,
        scale.data.byteOffset,
        bias ? (bias.data as Float32Array).byteOffset : -1,
        r0,
        r1,
        rows,
        size,
        epsilon,
      ]);
      runTiles(memory, ctx.parallel, layerNormTile, tiles);
    },
  });
}

const stats = (data: unknown): Float32Array | undefined => (data instanceof Float32Array ? data : undefined);

const LAYER_NORM_TILE = 'js.layerNorm';

/** Tile: rows [r0, r1) of a LayerNormalization (whole tensors addressed by byte offsets). */
export const layerNormTile = tileFunction(LAYER_NORM_TILE, (memory: LinearMemory, t: readonly number[]) => {
  const [x, y, scale, bias, r0, r1, rows, size, epsilon] = t as NumberTuple<9>;
  const simd = layerNormRows(memory);
  if (simd) {
    simd(x + r0 * size * 4, y + r0 * size * 4, scale, bias, r1 - r0, size, epsilon);
    return;
  }
  const view = (at: number, count: number): Float32Array => new Float32Array(memory.buffer, at, count);
  const b = bias >= 0 ? view(bias, size) : undefined;
  normalizeRows(view(x, rows * size), view(y, rows * size), view(scale, size), b, r0, r1, size, epsilon, undefined, undefined);
});

/** Rows [r0, r1): y = (x − mean)/√(var + ε)·scale + bias, statistics in float64 as the reference. */
function normalizeRows(
  x: Float32Array,
  y: Float32Array,
  scale: Float32Array,
  bias: Float32Array | undefined,
  r0: number,
  r1: number,
  size: number,
  epsilon: number,
  meanOut: Float32Array | undefined,
  invStdOut: Float32Array | undefined,
): void {
  for (let r = r0; r < r1; r++) {
    const at = r * size;
    let sum = 0;
    for (let i = 0; i < size; i++) sum += x[at + i] as number;
    const mean = sum / size;
    let squares = 0;
    for (let i = 0; i < size; i++) {
      const d = (x[at + i] as number) - mean;
      squares += d * d;
    }
    const inv = 1 / Math.sqrt(squares / size + epsilon);
    if (bias) {
      for (let i = 0; i < size; i++) y[at + i] = ((x[at + i] as number) - mean) * inv * (scale[i] as number) + (bias[i] as number);
    } else {
      for (let i = 0; i < size; i++) y[at + i] = ((x[at + i] as number) - mean) * inv * (scale[i] as number);
    }
    if (meanOut) meanOut[r] = mean;
    if (invStdOut) invStdOut[r] = inv;
  }
}
