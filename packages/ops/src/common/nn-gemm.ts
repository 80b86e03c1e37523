/** Small dense GEMM for nn kernels: C[M,N] += A[M,K] · B[K,N], row-major, contiguous inner loops. */
import type { FloatArray } from './nn-float-io.js';

/**
 * Accumulates A·B into C. Rows of B are streamed four at a time so each pass over a row of C does
 * four multiply-adds per load/store.
 */
export function gemmAccumulate(
  a: FloatArray,
  aOffset: number,
  b: FloatArray,
  bOffset: number,
  c: FloatArray,
  cOffset: number,
  shape: { readonly m: number; readonly k: number; readonly n: number },
): void {
  const { m, k, n } = shape;
  for (let i = 0; i < m; i++) {
    const aRow = aOffset + i * k;
    const cRow = cOffset + i * n;
    let p = 0;
    for (; p + 3 < k; p += 4) {
      const a0 = a[aRow + p] as number;
      const a1 = a[aRow + p + 1] as number;
      const a2 = a[aRow + p + 2] as number;
      const a3 = a[aRow + p + 3] as number;
      const b0 = bOffset + p * n;
      const b1 = b0 + n;
      const b2 = b1 + n;
      const b3 = b2 + n;
      for (let j = 0; j < n; j++) {
        c[cRow + j] =
          (c[cRow + j] as number) +
          a0 * (b[b0 + j] as number) +
          a1 * (b[b1 + j] as number) +
          a2 * (b[b2 + j] as number) +
          a3 * (b[b3 + j] as number);
      }
    }
    for (; p < k; p++) {
      const av = a[aRow + p] as number;
      const bRow = bOffset + p * n;
      for (let j = 0; j < n; j++) c[cRow + j] = (c[cRow + j] as number) + av * (b[bRow + j] as number);
    }
  }
}
