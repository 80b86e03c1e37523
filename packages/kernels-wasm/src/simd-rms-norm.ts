import type { KernelContextV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { rmsNormRows } from './layer-norm-module.js';
import { inMemory } from './simd-matmul.js';
import { type NumberTuple, runTiles, splitRange, tileFunction } from './tiles.js';

/**
 * RMS normalization (ONNX RMSNormalization, com.microsoft SimplifiedLayerNormalization) of float32
 * in device memory, y = x/√(mean(x²) + ε)·scale over the axes from `axis` on, when scale covers
 * exactly those axes and only Y is asked for: rows in WebAssembly SIMD (float32 lanes, as
 * onnxruntime's CPU kernel), split across threads. Anything else goes to the reference kernel.
 */
export function simdRmsNormKernel(
  reference: KernelV1,
  opType: 'RMSNormalization' | 'SimplifiedLayerNormalization',
  domain: string,
): KernelV1 {
  return defineKernel({
    opType,
    domain,
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      const scale = ctx.tensor(1);
      if (!memory || !rmsNormRows(memory) || !x || !scale || x.type !== 'float32' || scale.type !== 'float32' || ctx.outputCount !== 1)
        return reference.compute(ctx);
      const rank = x.dims.length;
      const given = ctx.attrs.int('axis', -1);
      const axis = given < 0 ? given + rank : given;
      if (!(axis >= 0 && axis < rank)) return reference.compute(ctx);
      const inner = x.dims.slice(axis);
      const size = inner.reduce((p, d) => p * d, 1);
      const scaleDims = scale.dims.slice(scale.dims.findIndex((d) => d !== 1));
      const covers =
        scale.data.length === size &&
        scaleDims.length <= inner.length &&
        scaleDims.every((d, i) => d === inner[inner.length - scaleDims.length + i]);
      if (!covers || size === 0 || !inMemory(memory, x, scale)) return reference.compute(ctx);
      const y = ctx.output(0, x.dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const rows = x.dims.slice(0, axis).reduce((p, d) => p * d, 1);
      const at = (t: { data: unknown }) => (t.data as Float32Array).byteOffset;
      const epsilon = ctx.attrs.float('epsilon', 1e-5);
      const tiles = splitRange(rows, ctx.parallel?.threads ?? 1, 1, size * 4, 1 << 16).map(([r0, r1]) => [
        at(x),
        at(y),
        at(scale),
        r0,
        r1,
        size,
        epsilon,
      ]);
      runTiles(memory, ctx.parallel, rmsNormTile, tiles);
    },
  });
}

/** Tile: rows [r0, r1) of an RMS normalization (tensors by byte offset). */
export const rmsNormTile = tileFunction('wasm.rmsNorm', (memory: LinearMemory, t: readonly number[]) => {
  const [x, y, scale, r0, r1, size, epsilon] = t as NumberTuple<7>;
  const run = rmsNormRows(memory);
  if (!run) throw new Error('RMS normalization tile without WebAssembly SIMD');
  run(x + r0 * size * 4, y + r0 * size * 4, scale, r1 - r0, size, epsilon);
});
