import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { simdKernels } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';

const floats = (t: HostTensor | undefined): Float32Array | undefined => (t?.data instanceof Float32Array ? t.data : undefined);

/**
 * BatchNormalization inference on float32 in device memory: each channel folds to y = x·a + b with
 * a = scale/√(var + ε) and b = B − mean·a (computed in float64), one SIMD pass per plane.
 * Training mode, extra outputs and other dtypes go to the reference kernel.
 */
export function simdBatchNormKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'BatchNormalization',
    name: 'wasm-simd',
    dtypes: ['float32'],
    inPlace: [[0, 0]],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      const scale = floats(ctx.tensor(1));
      const bias = floats(ctx.tensor(2));
      const mean = floats(ctx.tensor(3));
      const variance = floats(ctx.tensor(4));
      if (!memory || x?.type !== 'float32' || x.dims.length < 2 || !inMemory(memory, x) || !scale || !bias || !mean || !variance) {
        return reference.compute(ctx);
      }
      if (ctx.attrs.int('training_mode', 0) !== 0 || ctx.outputCount > 1) return reference.compute(ctx);
      const n = x.dims[0] as number;
      const c = x.dims[1] as number;
      if (scale.length !== c || bias.length !== c || mean.length !== c || variance.length !== c) return reference.compute(ctx);
      const kernels = simdKernels(memory);
      if (!kernels) return reference.compute(ctx);
      const y = ctx.output(0, x.dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const spatial = x.dims.slice(2).reduce((p, d) => p * d, 1);
      const epsilon = ctx.attrs.float('epsilon', 1e-5);
      const xAt = (x.data as Float32Array).byteOffset;
      const yAt = (y.data as Float32Array).byteOffset;
      for (let ch = 0; ch < c; ch++) {
        const a = (scale[ch] as number) / Math.sqrt((variance[ch] as number) + epsilon);
        const b = (bias[ch] as number) - (mean[ch] as number) * a;
        for (let batch = 0; batch < n; batch++) {
          const offset = (batch * c + ch) * spatial * 4;
          kernels.affine(xAt + offset, yAt + offset, spatial, a, b);
        }
      }
    },
  });
}
