import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { simdKernels } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';

/**
 * Swish (x·sigmoid(alpha·x), which the compiler also fuses from Mul(x, Sigmoid(x))) on float32 in
 * device memory, from the SIMD elementwise functions: y = alpha·x (when alpha ≠ 1), y = sigmoid(y),
 * y = x·y. The output must not overwrite x before the last pass, so the kernel is not in-place.
 */
export function simdSwishKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Swish',
    name: 'wasm-simd',
    dtypes: ['float32'],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      if (!memory || x?.type !== 'float32' || !inMemory(memory, x)) return reference.compute(ctx);
      const kernels = simdKernels(memory);
      if (!kernels) return reference.compute(ctx);
      const y = ctx.output(0, x.dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const xs = x.data as Float32Array;
      const ys = y.data as Float32Array;
      if (xs.byteOffset === ys.byteOffset) return reference.compute(ctx);
      const n = xs.length;
      const alpha = ctx.attrs.float('alpha', 1);
      if (alpha === 1) kernels.sigmoid(xs.byteOffset, ys.byteOffset, n);
      else {
        kernels.affine(xs.byteOffset, ys.byteOffset, n, alpha, 0);
        kernels.sigmoid(ys.byteOffset, ys.byteOffset, n);
      }
      kernels.mulVV(xs.byteOffset, ys.byteOffset, ys.byteOffset, n);
    },
  });
}
