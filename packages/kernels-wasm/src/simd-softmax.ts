import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { simdKernels } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';

/**
 * Softmax on float32 in device memory when the reduced elements are contiguous: the last axis
 * (opset ≥ 13) or everything from `axis` on (older opsets flatten there). Others go to the reference.
 */
export function simdSoftmaxKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Softmax',
    name: 'wasm-simd',
    dtypes: ['float32'],
    inPlace: [[0, 0]],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      if (!memory || x?.type !== 'float32' || x.dims.length === 0 || !inMemory(memory, x)) return reference.compute(ctx);
      const rank = x.dims.length;
      const legacy = ctx.opsetVersion > 0 && ctx.opsetVersion < 13;
      const raw = ctx.attrs.int('axis', legacy ? 1 : -1);
      const axis = raw < 0 ? raw + rank : raw;
      if (axis < 0 || axis >= rank || (!legacy && axis !== rank - 1)) return reference.compute(ctx);
      const n = x.dims.slice(axis).reduce((p, d) => p * d, 1);
      const rows = x.dims.slice(0, axis).reduce((p, d) => p * d, 1);
      const kernels = simdKernels(memory);
      if (!kernels || n === 0) return reference.compute(ctx);
      const y = ctx.output(0, x.dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      kernels.softmaxRows((x.data as Float32Array).byteOffset, (y.data as Float32Array).byteOffset, rows, n);
    },
  });
}
