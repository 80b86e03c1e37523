/**
 * The reference matrix-multiply core: C[M,N] (+)= A[M,K] · B[K,N] on row-major number arrays,
 * in i-k-j order over blocks of K so a block of B rows stays in cache while A rows stream by.
 */
import type { NumberArray } from '@tsge/ops/kernel-support';

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
 * gemmInto specialised for float32 operands: monomorphic typed arrays, two rows of A and four rows
 * of B per pass, so each B element loaded feeds eight multiply-adds. `row` needs 2·N slots.
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
  const row0 = row.subarray(0, n);
  const row1 = row.subarray(n, 2 * n);
  let i = 0;
  for (; i + 1 < m; i += 2) {
    row0.fill(0);
    row1.fill(0);
    const r0 = aOffset + i * k;
    const r1 = r0 + k;
    let p = 0;
    for (; p < k4; p += 4) {
      const a00 = a[r0 + p]!;
      const a01 = a[r0 + p + 1]!;
      const a02 = a[r0 + p + 2]!;
      const a03 = a[r0 + p + 3]!;
      const a10 = a[r1 + p]!;
      const a11 = a[r1 + p + 1]!;
      const a12 = a[r1 + p + 2]!;
      const a13 = a[r1 + p + 3]!;
      const b0 = bOffset + p * n;
      const b1 = b0 + n;
      const b2 = b1 + n;
      const b3 = b2 + n;
      for (let j = 0; j < n; j++) {
        const x0 = b[b0 + j]!;
        const x1 = b[b1 + j]!;
        const x2 = b[b2 + j]!;
        const x3 = b[b3 + j]!;
        row0[j] = row0[j]! + a00 * x0 + a01 * x1 + a02 * x2 + a03 * x3;
        row1[j] = row1[j]! + a10 * x0 + a11 * x1 + a12 * x2 + a13 * x3;
      }
    }
    for (; p < k; p++) {
      const v0 = a[r0 + p]!;
      const v1 = a[r1 + p]!;
      const bRow = bOffset + p * n;
      for (let j = 0; j < n; j++) {
        const x = b[bRow + j]!;
        row0[j] = row0[j]! + v0 * x;
        row1[j] = row1[j]! + v1 * x;
      }
    }
    const c0 = cOffset + i * n;
    for (let j = 0; j < n; j++) {
      c[c0 + j] = row0[j]!;
      c[c0 + n + j] = row1[j]!;
    }
  }
  if (i < m) {
    // the odd last row
    row0.fill(0);
    const r0 = aOffset + i * k;
    for (let p = 0; p < k; p++) {
      const v = a[r0 + p]!;
      const bRow = bOffset + p * n;
      for (let j = 0; j < n; j++) row0[j] = row0[j]! + v * b[bRow + j]!;
    }
    const c0 = cOffset + i * n;
    for (let j = 0; j < n; j++) c[c0 + j] = row0[j]!;
  }
}

/** A row-major transpose of an r×c matrix (float32 stays float32, anything else becomes float64). */
export function transposeMatrix(src: NumberArray, rows: number, cols: number): Float32Array | Float64Array {
  const out = src instanceof Float32Array ? new Float32Array(rows * cols) : new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = src[i * cols + j]!;
  return out;
}
