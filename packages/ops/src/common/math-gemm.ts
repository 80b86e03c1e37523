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

/**
 * gemmInto specialised for float32 operands: monomorphic typed arrays and four rows of B per pass,
 * so each accumulator slot is loaded and stored once per four multiply-adds.
 */
export function gemmFloat32(
  a: Float32Array,
  aOffset: number,
  b: Float32Array,
  bOffset: number,
  c: Float32Array,
  cOffset: number,
  dims: { readonly m: number; readonly k: number; readonly n: number },
  row: Float64Array,
): void {
  const { m, k, n } = dims;
  const k4 = k - (k % 4);
  for (let i = 0; i < m; i++) {
    row.fill(0, 0, n);
    const aRow = aOffset + i * k;
    let p = 0;
    for (; p < k4; p += 4) {
      const a0 = a[aRow + p]!;
      const a1 = a[aRow + p + 1]!;
      const a2 = a[aRow + p + 2]!;
      const a3 = a[aRow + p + 3]!;
      const b0 = bOffset + p * n;
      const b1 = b0 + n;
      const b2 = b1 + n;
      const b3 = b2 + n;
      for (let j = 0; j < n; j++) row[j] = row[j]! + a0 * b[b0 + j]! + a1 * b[b1 + j]! + a2 * b[b2 + j]! + a3 * b[b3 + j]!;
    }
    for (; p < k; p++) {
      const av = a[aRow + p]!;
      const bRow = bOffset + p * n;
      for (let j = 0; j < n; j++) row[j] = row[j]! + av * b[bRow + j]!;
    }
    const cRow = cOffset + i * n;
    for (let j = 0; j < n; j++) c[cRow + j] = row[j]!;
  }
}

/** A row-major transpose of an r×c matrix (float32 stays float32, anything else becomes float64). */
export function transposeMatrix(src: NumberArray, rows: number, cols: number): Float32Array | Float64Array {
  const out = src instanceof Float32Array ? new Float32Array(rows * cols) : new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = src[i * cols + j]!;
  return out;
}
