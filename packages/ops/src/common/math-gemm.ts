/**
 * The reference matrix-multiply core: C[M,N] (+)= A[M,K] · B[K,N] on row-major number arrays,
 * in i-k-j order over blocks of K so a block of B rows stays in cache while A rows stream by.
 */
import type { NumberArray } from './math-values.js';

const K_BLOCK = 256;

/**
 * Writes C = A·B for one matrix. `row` is scratch of at least N float64 slots (accumulation in
 * float64 keeps float32 results within one rounding of the exact product).
 */
export function gemmInto(
  a: NumberArray,
  aOffset: number,
  b: NumberArray,
  bOffset: number,
  c: NumberArray,
  cOffset: number,
  dims: { readonly m: number; readonly k: number; readonly n: number },
  row: Float64Array,
): void {
  const { m, k, n } = dims;
  for (let i = 0; i < m; i++) {
    row.fill(0, 0, n);
    const aRow = aOffset + i * k;
    for (let k0 = 0; k0 < k; k0 += K_BLOCK) {
      const kEnd = Math.min(k, k0 + K_BLOCK);
      for (let p = k0; p < kEnd; p++) {
        const av = a[aRow + p]!;
        if (av === 0) continue;
        const bRow = bOffset + p * n;
        for (let j = 0; j < n; j++) row[j]! += av * b[bRow + j]!;
      }
    }
    const cRow = cOffset + i * n;
    for (let j = 0; j < n; j++) c[cRow + j] = row[j]!;
  }
}

/** A row-major transpose of an r×c matrix into a new Float64Array. */
export function transposeMatrix(src: NumberArray, rows: number, cols: number): Float64Array {
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = src[i * cols + j]!;
  return out;
}
