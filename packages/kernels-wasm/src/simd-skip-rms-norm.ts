import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { rmsNormRows } from './layer-norm-module.js';
import { inMemory } from './simd-matmul.js';
import { rmsNormTile } from './simd-rms-norm.js';
import { runTiles, splitRange } from './tiles.js';

/**
 * com.microsoft SkipSimplifiedLayerNormalization of float32 in device memory: s = x + skip (+ bias)
 * is summed in float32 into input_skip_bias_sum when it is asked for, else into the output, and
 * the RMS normalization rows (y = s/√(mean(s²) + ε)·gamma) run in WebAssembly SIMD from there,
 * split across threads (with the sum asked for, the mean and inv_std_var outputs are filled in
 * JavaScript). Mean or inv_std_var without the sum, other dtypes or shapes go to the reference kernel.
 */
export function simdSkipRmsNormKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'SkipSimplifiedLayerNormalization',
    domain: 'com.microsoft',
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      const skip = ctx.tensor(1);
      const gamma = ctx.tensor(2);
      const bias = ctx.inputCount > 3 ? ctx.tensor(3) : undefined;
      const wantsStats = ctx.outputCount === 2 || ctx.outputCount === 3;
      if (!memory || !rmsNormRows(memory) || !x || !skip || !gamma || wantsStats || ctx.outputCount > 4) return reference.compute(ctx);
      if (x.dims.length !== 2 && x.dims.length !== 3) return reference.compute(ctx);
      const size = x.dims[x.dims.length - 1] as number;
      const total = x.data.length;
      const all = [x, skip, gamma, ...(bias ? [bias] : [])] as HostTensor[];
      if (all.some((t) => t.type !== 'float32') || size === 0 || total === 0) return reference.compute(ctx);
      // skip is x's shape or one [S, H] shared by every batch
      const shared = skip.data.length !== total && x.dims.length === 3 && skip.data.length === total / (x.dims[0] as number);
      const skipFits =
        skip.dims.join() === x.dims.join() ||
        (shared && (skip.dims.join() === x.dims.slice(1).join() || skip.dims.join() === [1, ...x.dims.slice(1)].join()));
      if (!skipFits || gamma.data.length !== size || (bias && bias.data.length !== size) || !inMemory(memory, ...all))
        return reference.compute(ctx);
      const y = ctx.output(0, x.dims, 'float32');
      const sumOut = ctx.outputCount === 4 ? ctx.output(3, x.dims, 'float32') : y;
      if (!inMemory(memory, y, sumOut)) return reference.compute(ctx);
      const xs = x.data as Float32Array;
      const ss = skip.data as Float32Array;
      const bs = bias?.data as Float32Array | undefined;
      const sum = sumOut.data as Float32Array;
      const period = ss.length;
      for (let base = 0; base < total; base += period)
        for (let i = 0; i < period; i++) sum[base + i] = (xs[base + i] as number) + (ss[i] as number);
      if (bs) for (let i = 0; i < total; i++) sum[i] = (sum[i] as number) + (bs[i % size] as number);
      const rows = total / size;
      const epsilon = ctx.attrs.float('epsilon', 1e-5);
      const tiles = splitRange(rows, ctx.parallel?.threads ?? 1, 1, size * 4, 1 << 16).map(([r0, r1]) => [
        sum.byteOffset,
        (y.data as Float32Array).byteOffset,
        (gamma.data as Float32Array).byteOffset,
        r0,
        r1,
        size,
        epsilon,
      ]);
      runTiles(memory, ctx.parallel, rmsNormTile, tiles);
      if (ctx.outputCount === 4) {
        // with the sum asked for, the statistics outputs exist too: filled as the reference does
        const stats = x.dims.map((d, i) => (i === x.dims.length - 1 ? 1 : d));
        const mean = ctx.output(1, stats, 'float32').data as Float32Array;
        const inv = ctx.output(2, stats, 'float32').data as Float32Array;
        for (let r = 0; r < rows; r++) {
          let m = 0;
          let q = 0;
          for (let i = r * size; i < (r + 1) * size; i++) {
            const v = sum[i] as number;
            m += v;
            q += v * v;
          }
          mean[r] = m / size;
          inv[r] = 1 / Math.sqrt(q / size + epsilon);
        }
      }
    },
  });
}
