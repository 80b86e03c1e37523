import type { HostTensor, KernelContextV1, KernelV1, LinearMemory, ParallelRunnerV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { gemmPackedTile, packedGemmTiles, usePackedGemm } from './gemm-packed-tiles.js';
import { gemvColumnsTile, gemvTiles, useGemv } from './gemv-tiles.js';
import { simdKernels } from './kernel-modules.js';
import { tileFunction, runTiles, splitRange, type NumberTuple } from './tiles.js';
import { float32Of } from './memory-views.js';

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

/** Matrix operand of a GEMM in device memory: a float32 view, an element offset and a row stride. */
export interface MatrixRef {
  readonly data: Float32Array;
  readonly offset: number;
  readonly ld: number;
}

const GEMM_ROWS = 'simd.gemmRows';
export const gemmRowsTile = tileFunction(GEMM_ROWS, (memory, t) => {
  const all = float32Of(memory);
  const [m, n, k, a, lda, b, ldb, c, ldc, acc] = t as NumberTuple<10>;
  simdGemm(
    memory,
    { m, n, k },
    { data: all, offset: a / 4, ld: lda },
    { data: all, offset: b / 4, ld: ldb },
    { data: all, offset: c / 4, ld: ldc },
    acc !== 0,
  );
});

/**
 * The GEMM tiles of C = A·B split by rows of A/C (multiples of 4), as arguments of `simd.gemmRows`;
 * with too few rows for the threads (a decode step's GEMV: one row) split by columns of B/C
 * (multiples of 16) instead, so every thread streams its share of B.
 */
export function gemmRowTiles(
  shape: { m: number; n: number; k: number },
  a: MatrixRef,
  b: MatrixRef,
  c: MatrixRef,
  threads: number,
): number[][] {
  const byte = (r: MatrixRef, row: number, column = 0): number => r.data.byteOffset + (r.offset + row * r.ld + column) * 4;
  const rows = splitRange(shape.m, threads, 4, shape.n * shape.k);
  const columns = threads > 1 && rows.length < threads ? splitRange(shape.n, threads, 16, shape.m * shape.k) : [];
  if (columns.length > rows.length)
    return columns.map(([n0, n1]) => [shape.m, n1 - n0, shape.k, byte(a, 0), a.ld, byte(b, 0, n0), b.ld, byte(c, 0, n0), c.ld, 0]);
  return rows.map(([r0, r1]) => [r1 - r0, shape.n, shape.k, byte(a, r0), a.ld, byte(b, 0), b.ld, byte(c, r0), c.ld, 0]);
}

/** C = A·B over device memory, split across threads when a pool is given. */
export function parallelGemm(
  memory: LinearMemory,
  parallel: ParallelRunnerV1 | undefined,
  shape: { m: number; n: number; k: number },
  a: MatrixRef,
  b: MatrixRef,
  c: MatrixRef,
): void {
  const threads = parallel?.threads ?? 1;
  const at = (r: MatrixRef) => ({ byte: r.data.byteOffset + r.offset * 4, ld: r.ld });
  if (useGemv(shape.m, shape.n, shape.k)) {
    runTiles(memory, parallel, gemvColumnsTile, gemvTiles(shape.m, shape.n, shape.k, at(a), at(b), at(c), threads));
    return;
  }
  if (usePackedGemm(memory, shape.m, shape.n, shape.k)) {
    runTiles(memory, parallel, gemmPackedTile, packedGemmTiles(shape.m, shape.n, shape.k, at(a), at(b), at(c), threads));
    return;
  }
  runTiles(memory, parallel, gemmRowsTile, gemmRowTiles(shape, a, b, c, threads));
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
    // splits its work into tiles through ctx.parallel
    parallel: true,
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
      const threads = ctx.parallel?.threads ?? 1;
      if (bIsMatrix) {
        parallelGemm(
          memory,
          ctx.parallel,
          { m: batch * m, n, k },
          { data: A, offset: 0, ld: k },
          { data: B, offset: 0, ld: n },
          { data: Y, offset: 0, ld: n },
        );
        return;
      }
      const tiles: number[][] = [];
      if (usePackedGemm(memory, m, n, k)) {
        const at = (data: Float32Array, offset: number, ld: number) => ({ byte: data.byteOffset + offset * 4, ld });
        for (let i = 0; i < batch; i++)
          tiles.push(...packedGemmTiles(m, n, k, at(A, i * m * k, k), at(B, i * k * n, n), at(Y, i * m * n, n), threads));
        runTiles(memory, ctx.parallel, gemmPackedTile, tiles);
        return;
      }
      for (let i = 0; i < batch; i++) {
        const shape = { m, n, k };
        tiles.push(
          ...gemmRowTiles(
            shape,
            { data: A, offset: i * m * k, ld: k },
            { data: B, offset: i * k * n, ld: n },
            { data: Y, offset: i * m * n, ld: n },
            threads,
          ),
        );
      }
      runTiles(memory, ctx.parallel, gemmRowsTile, tiles);
    },
  });
}
