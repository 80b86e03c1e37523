import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { simdKernels } from './kernel-modules.js';
import { inMemory, simdGemm } from './simd-matmul.js';

/** C's [rows, columns] broadcast against [m, n]; undefined when it does not broadcast. */
function broadcastOf(c: HostTensor, m: number, n: number): { rowStep: number; columnStep: number } | undefined {
  if (c.dims.length > 2) return undefined;
  const cm = c.dims.length === 2 ? (c.dims[0] as number) : 1;
  const cn = c.dims.length >= 1 ? (c.dims[c.dims.length - 1] as number) : 1;
  if ((cm !== 1 && cm !== m) || (cn !== 1 && cn !== n)) return undefined;
  return { rowStep: cm === 1 ? 0 : cn, columnStep: cn === 1 ? 0 : 1 };
}

/**
 * Gemm on float32 in device memory (transA = 0). transB = 1, the fully connected layer, streams
 * each row of B once per row of A through a dot-product kernel; transB = 0 uses the SIMD GEMM.
 * alpha is applied in the kernel or after it, beta·C (scalar, row, column or full) in one pass.
 */
export function simdGemmKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Gemm',
    name: 'wasm-simd',
    dtypes: ['float32'],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const a = ctx.tensor(0);
      const b = ctx.tensor(1);
      const c = ctx.tensor(2);
      if (!memory || !a || !b || a.dims.length !== 2 || b.dims.length !== 2 || !inMemory(memory, a, b)) return reference.compute(ctx);
      if (ctx.attrs.int('transA', 0) !== 0) return reference.compute(ctx);
      const transB = ctx.attrs.int('transB', 0) !== 0;
      const alpha = ctx.attrs.float('alpha', 1);
      const beta = ctx.attrs.float('beta', 1);
      const [m, k] = a.dims as [number, number];
      const [kb, n] = (transB ? [b.dims[1], b.dims[0]] : b.dims) as [number, number];
      const useC = c !== undefined && beta !== 0;
      const cLayout = useC ? broadcastOf(c, m, n) : undefined;
      if (k !== kb || m * n * k === 0 || (useC && (!cLayout || !(c.data instanceof Float32Array)))) return reference.compute(ctx);
      const kernels = simdKernels(memory);
      if (!kernels) return reference.compute(ctx);
      const y = ctx.output(0, [m, n], 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const A = a.data as Float32Array;
      const B = b.data as Float32Array;
      const Y = y.data as Float32Array;
      if (transB) {
        for (let i = 0; i < m; i++) kernels.dotRows(A.byteOffset + i * k * 4, B.byteOffset, Y.byteOffset + i * n * 4, n, k, alpha);
      } else {
        simdGemm(memory, { m, n, k }, { data: A, offset: 0, ld: k }, { data: B, offset: 0, ld: n }, { data: Y, offset: 0, ld: n });
        if (alpha !== 1) for (let i = 0; i < m * n; i++) Y[i] = (Y[i] as number) * alpha;
      }
      if (useC && cLayout) {
        const C = c.data as Float32Array;
        for (let i = 0; i < m; i++) {
          let at = i * cLayout.rowStep;
          for (let j = 0, o = i * n; j < n; j++, o++, at += cLayout.columnStep) Y[o] = (Y[o] as number) + beta * (C[at] as number);
        }
      }
    },
  });
}
