import type { HostTensor, KernelContextV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { defineKernel } from '../define.js';
import { simdKernels } from './kernel-modules.js';

/** Whether a float32 view lies in `memory` (so WebAssembly can address it by byte offset). */
export function inMemory(memory: LinearMemory, ...tensors: HostTensor[]): boolean {
  for (const t of tensors) if (!(t.data instanceof Float32Array) || t.data.buffer !== memory.buffer) return false;
  return true;
}

/**
 * C[M×N] = A[M×K]·B[K×N] with row strides; columns past the last multiple of 4 are finished in JS.
 * `accumulate` adds to C instead of overwriting it.
 */
export function simdGemm(
  memory: LinearMemory,
  shape: { m: number; n: number; k: number },
  a: { data: Float32Array; offset: number; ld: number },
  b: { data: Float32Array; offset: number; ld: number },
  c: { data: Float32Array; offset: number; ld: number },
  accumulate = false,
): boolean {
  const kernels = simdKernels(memory);
  if (!kernels) return false;
  const { m, n, k } = shape;
  kernels.gemm(
    m,
    n,
    k,
    a.data.byteOffset + a.offset * 4,
    a.ld,
    b.data.byteOffset + b.offset * 4,
    b.ld,
    c.data.byteOffset + c.offset * 4,
    c.ld,
    accumulate ? 1 : 0,
  );
  const done = n - (n % 4);
  if (done < n) {
    const A = a.data;
    const B = b.data;
    const C = c.data;
    for (let i = 0; i < m; i++) {
      for (let j = done; j < n; j++) {
        let s = 0;
        for (let p = 0; p < k; p++) s += (A[a.offset + i * a.ld + p] as number) * (B[b.offset + p * b.ld + j] as number);
        const at = c.offset + i * c.ld + j;
        C[at] = accumulate ? (C[at] as number) + s : s;
      }
    }
  }
  return true;
}

/**
 * MatMul on float32 in device memory: A[..., M, K] · B[K, N] as one GEMM over all batch rows, or
 * equal batch dims batch by batch. Other layouts (broadcast batches, 1-D operands, host memory) go
 * to the reference kernel.
 */
export function simdMatMulKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'MatMul',
    name: 'wasm-simd',
    dtypes: ['float32'],
    compute: (ctx: KernelContextV1) => {
      const a = ctx.tensor(0);
      const b = ctx.tensor(1);
      const memory = ctx.memory;
      if (!a || !b || !memory || a.dims.length < 2 || b.dims.length < 2 || !inMemory(memory, a, b)) return reference.compute(ctx);
      const m = a.dims[a.dims.length - 2] as number;
      const k = a.dims[a.dims.length - 1] as number;
      const n = b.dims[b.dims.length - 1] as number;
      if (b.dims[b.dims.length - 2] !== k) return reference.compute(ctx);
      const aBatch = a.dims.slice(0, -2);
      const bBatch = b.dims.slice(0, -2);
      const sameBatch = aBatch.length === bBatch.length && aBatch.every((d, i) => d === bBatch[i]);
      const bIsMatrix = bBatch.every((d) => d === 1);
      if (!bIsMatrix && !sameBatch) return reference.compute(ctx);
      const batch = aBatch.reduce((p, d) => p * d, 1);
      const outDims = [...(aBatch.length >= bBatch.length ? aBatch : bBatch), m, n];
      const y = ctx.output(0, outDims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const A = a.data as Float32Array;
      const B = b.data as Float32Array;
      const Y = y.data as Float32Array;
      if (bIsMatrix) {
        simdGemm(
          memory,
          { m: batch * m, n, k },
          { data: A, offset: 0, ld: k },
          { data: B, offset: 0, ld: n },
          { data: Y, offset: 0, ld: n },
        );
        return;
      }
      for (let i = 0; i < batch; i++) {
        simdGemm(
          memory,
          { m, n, k },
          { data: A, offset: i * m * k, ld: k },
          { data: B, offset: i * k * n, ld: n },
          { data: Y, offset: i * m * n, ld: n },
        );
      }
    },
  });
}
