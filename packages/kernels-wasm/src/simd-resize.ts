import { type HostTensor, type KernelContextV1, type KernelV1, createTensor, toNumberArray } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { simdKernels } from './kernel-modules.js';
import { resizeSeparable } from './resize-separable.js';
import { inMemory } from './simd-matmul.js';
import { upsampleRows } from './resize-nearest-module.js';
import { type NumberTuple, runTiles, splitRange, tileFunction } from './tiles.js';

/** Where each output row and column of a nearest-neighbour Resize reads from. */
interface NearestMaps {
  readonly rows: Int32Array;
  readonly columns: Int32Array;
  /** Whether columns[o] = ⌊o/2⌋ (the ×2 upsampling the SIMD row doubler handles). */
  readonly doubled: boolean;
  /** Integer factors [fh, fw] when rows[o] = ⌊o/fh⌋ and columns[o] = ⌊o/fw⌋ (upsampleRows), else undefined. */
  readonly factors: readonly [number, number] | undefined;
}

/** f when map[o] = ⌊o/f⌋ for every o of a map n·f long, else 0. */
function repeatFactor(map: Int32Array, n: number): number {
  const f = map.length / n;
  if (!Number.isInteger(f) || f < 1) return 0;
  for (let o = 0; o < map.length; o++) if (map[o] !== Math.floor(o / f)) return 0;
  return f;
}

export const RESIZE_NEAREST_TILE = 'simd.resizeNearestRows';

/** Rows [r0, r1) (of all planes) of an integer-factor nearest upsampling. Arguments: x, y, W, fh, fw, r0, r1. */
export const resizeNearestTile = tileFunction(RESIZE_NEAREST_TILE, (memory, t) => {
  const run = upsampleRows(memory);
  if (!run) throw new Error(`${RESIZE_NEAREST_TILE} needs WebAssembly SIMD`);
  const [x, y, W, fh, fw, r0, r1] = t as number[] as NumberTuple<7>;
  run(x, y, W, fh, fw, r0, r1);
});

const cache = new Map<string, NearestMaps | null>();

/**
 * The source maps of one [H×W] plane, found by running the reference kernel once on a probe plane
 * whose values are their own flat indices: every coordinate transformation and rounding mode is
 * then exactly the reference's. Null when the result is not a separable gather.
 */
function probeMaps(
  ctx: KernelContextV1,
  reference: KernelV1,
  H: number,
  W: number,
  sizes: readonly number[] | undefined,
): NearestMaps | null {
  // flat indices must be exact in float32
  if (H * W >= 1 << 24) return null;
  const probe = createTensor(
    'float32',
    [1, 1, H, W],
    Float32Array.from({ length: H * W }, (_, i) => i),
  );
  const sizesTensor = sizes ? createTensor('int64', [sizes.length], BigInt64Array.from(sizes.map((s) => BigInt(s)))) : undefined;
  let result: HostTensor | undefined;
  reference.compute({
    nodeName: ctx.nodeName,
    opType: ctx.opType,
    attrs: ctx.attrs,
    inputCount: ctx.inputCount,
    outputCount: 1,
    opsetVersion: ctx.opsetVersion,
    input: (i) => (i === 0 ? probe : i === 3 && sizesTensor ? sizesTensor : ctx.input(i)),
    tensor: (i) => (i === 0 ? probe : i === 3 && sizesTensor ? sizesTensor : ctx.tensor(i)),
    output: (_i, dims, dtype) => {
      result = createTensor(dtype, dims);
      return result;
    },
    setOutput: () => {},
    runSubgraph: () => [],
  });
  if (result?.dims.length !== 4 || result.dims[0] !== 1 || result.dims[1] !== 1) return null;
  const [OH, OW] = [result.dims[2] as number, result.dims[3] as number];
  const values = result.data as Float32Array;
  const rows = new Int32Array(OH);
  const columns = new Int32Array(OW);
  for (let oh = 0; oh < OH; oh++) rows[oh] = Math.floor((values[oh * OW] as number) / W);
  for (let ow = 0; ow < OW; ow++) columns[ow] = (values[ow] as number) % W;
  let doubled = OW === 2 * W;
  for (let oh = 0; oh < OH; oh++) {
    for (let ow = 0; ow < OW; ow++) {
      const v = values[oh * OW + ow] as number;
      if (v !== (rows[oh] as number) * W + (columns[ow] as number) || !Number.isInteger(v) || v < 0 || v >= H * W) return null;
    }
  }
  for (let ow = 0; ow < OW && doubled; ow++) doubled = columns[ow] === ow >> 1;
  const fh = repeatFactor(rows, H);
  const fw = repeatFactor(columns, W);
  return { rows, columns, doubled, factors: fh > 0 && fw > 0 ? [fh, fw] : undefined };
}

/**
 * Resize, mode nearest, of float32 [N, C, H, W] in device memory when only H and W change: integer
 * upsampling factors run as SIMD row tiles over the threads (upsampleRows); otherwise each output
 * row is a gather of one input row (a SIMD row doubler for ×2 columns), and an output row that
 * repeats the previous one is copied. Linear and cubic modes run the reference's taps as
 * separable row tiles when only the last two axes change (resize-separable.ts). Other modes,
 * ranks and policies go to the reference.
 */
export function simdResizeKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Resize',
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      if (memory && x?.type === 'float32' && inMemory(memory, x) && ctx.attrs.string('mode', 'nearest') !== 'nearest') {
        if (!resizeSeparable(ctx, memory, x, ctx.parallel)) reference.compute(ctx);
        return;
      }
      if (!memory || x?.type !== 'float32' || x.dims.length !== 4 || ctx.inputCount < 3 || !inMemory(memory, x))
        return reference.compute(ctx);
      const mode = ctx.attrs.string('mode', 'nearest');
      const coordinates = ctx.attrs.string('coordinate_transformation_mode', 'half_pixel');
      if (
        mode !== 'nearest' ||
        coordinates === 'tf_crop_and_resize' ||
        ctx.attrs.string('keep_aspect_ratio_policy', 'stretch') !== 'stretch'
      ) {
        return reference.compute(ctx);
      }
      const [N, C, H, W] = x.dims as [number, number, number, number];
      const axes = ctx.attrs.has('axes') ? ctx.attrs.ints('axes').map((a) => (a < 0 ? a + 4 : a)) : [0, 1, 2, 3];
      const scalesTensor = ctx.tensor(2);
      const sizesTensor = ctx.inputCount > 3 ? ctx.tensor(3) : undefined;
      const scales = scalesTensor && scalesTensor.data.length > 0 ? toNumberArray(scalesTensor) : undefined;
      const sizes = sizesTensor && sizesTensor.data.length > 0 ? toNumberArray(sizesTensor) : undefined;
      if (!scales === !sizes || H * W === 0) return reference.compute(ctx);
      const given = (scales ?? sizes) as number[];
      if (given.length !== axes.length) return reference.compute(ctx);
      // N and C must stay: scale 1, or size equal to the dim
      const keeps = axes.every((a, i) => a >= 2 || (scales ? given[i] === 1 : given[i] === x.dims[a]));
      if (!keeps) return reference.compute(ctx);
      const probeSizes = sizes ? sizes.map((s, i) => ((axes[i] as number) < 2 ? 1 : s)) : undefined;
      // everything the probed maps depend on
      const key = [
        H,
        W,
        axes,
        scales ? `s${scales}` : `z${probeSizes}`,
        coordinates,
        ctx.attrs.string('nearest_mode', 'round_prefer_floor'),
        ctx.attrs.int('exclude_outside', 0),
        ctx.attrs.int('antialias', 0),
      ].join('|');
      let maps = cache.get(key);
      if (maps === undefined) {
        maps = probeMaps(ctx, reference, H, W, probeSizes);
        if (cache.size > 256) cache.clear();
        cache.set(key, maps);
      }
      const kernels = simdKernels(memory);
      if (!maps || !kernels) return reference.compute(ctx);
      const OH = maps.rows.length;
      const OW = maps.columns.length;
      const y = ctx.output(0, [N, C, OH, OW], 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const X = x.data as Float32Array;
      const Y = y.data as Float32Array;
      const { rows, columns, doubled, factors } = maps;
      if (factors && upsampleRows(memory)) {
        // input rows of all planes back to back, each to fh output rows: split over the threads
        const [fh, fw] = factors;
        const head = [X.byteOffset, Y.byteOffset, W, fh, fw];
        const parts = splitRange(N * C * H, ctx.parallel?.threads ?? 1, 1, W * fh * fw);
        runTiles(
          memory,
          ctx.parallel,
          resizeNearestTile,
          parts.map((part) => [...head, ...part]),
        );
        return;
      }
      for (let p = 0; p < N * C; p++) {
        const xBase = p * H * W;
        const yBase = p * OH * OW;
        for (let oh = 0; oh < OH; oh++) {
          const at = yBase + oh * OW;
          if (oh > 0 && rows[oh] === rows[oh - 1]) {
            Y.copyWithin(at, at - OW, at);
            continue;
          }
          const from = xBase + (rows[oh] as number) * W;
          if (doubled) {
            kernels.doubleColumns(X.byteOffset + from * 4, Y.byteOffset + at * 4, W);
          } else {
            for (let ow = 0; ow < OW; ow++) Y[at + ow] = X[from + (columns[ow] as number)] as number;
          }
        }
      }
    },
  });
}
