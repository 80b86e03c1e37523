/**
 * Dense GEMM for nn kernels: C[M,N] += A[M,K] · B[K,N], row-major. B is packed into 4-column
 * panels and A into 4-row panels so the inner loop keeps a 4×4 block of C in locals and reads
 * both operands contiguously (8 loads per 16 multiply-adds).
 */
import type { FloatArray } from '@tsge/ops/kernel-support';

export interface GemmShape {
  readonly m: number;
  readonly k: number;
  readonly n: number;
}

function packB(b: FloatArray, bOffset: number, k: number, n: number): Float64Array | Float32Array {
  const panels = n >> 2;
  const packed = b instanceof Float64Array ? new Float64Array(panels * k * 4) : new Float32Array(panels * k * 4);
  for (let jb = 0; jb < panels; jb++) {
    const dst = jb * k * 4;
    const col = bOffset + jb * 4;
    for (let p = 0; p < k; p++) {
      const src = col + p * n;
      const d = dst + p * 4;
      packed[d] = b[src] as number;
      packed[d + 1] = b[src + 1] as number;
      packed[d + 2] = b[src + 2] as number;
      packed[d + 3] = b[src + 3] as number;
    }
  }
  return packed;
}

/** Accumulates A·B into C. */
export function gemmAccumulate(
  a: FloatArray,
  aOffset: number,
  b: FloatArray,
  bOffset: number,
  c: FloatArray,
  cOffset: number,
  shape: GemmShape,
): void {
  const { m, k, n } = shape;
  if (m === 0 || n === 0 || k === 0) return;
  const nFull = n & ~3;
  const mFull = m & ~3;
  const bPack = nFull > 0 && m >= 4 ? packB(b, bOffset, k, n) : undefined;
  const aPack = new Float64Array(k * 4);
  for (let i = 0; i < mFull; i += 4) {
    if (bPack) {
      const a0 = aOffset + i * k;
      for (let p = 0; p < k; p++) {
        aPack[p * 4] = a[a0 + p] as number;
        aPack[p * 4 + 1] = a[a0 + k + p] as number;
        aPack[p * 4 + 2] = a[a0 + 2 * k + p] as number;
        aPack[p * 4 + 3] = a[a0 + 3 * k + p] as number;
      }
      for (let j = 0; j < nFull; j += 4) {
        let c00 = 0;
        let c01 = 0;
        let c02 = 0;
        let c03 = 0;
        let c10 = 0;
        let c11 = 0;
        let c12 = 0;
        let c13 = 0;
        let c20 = 0;
        let c21 = 0;
        let c22 = 0;
        let c23 = 0;
        let c30 = 0;
        let c31 = 0;
        let c32 = 0;
        let c33 = 0;
        let bp = (j >> 2) * k * 4;
        for (let p = 0, ap = 0; p < k; p++, ap += 4, bp += 4) {
          const x0 = aPack[ap] as number;
          const x1 = aPack[ap + 1] as number;
          const x2 = aPack[ap + 2] as number;
          const x3 = aPack[ap + 3] as number;
          const y0 = bPack[bp] as number;
          const y1 = bPack[bp + 1] as number;
          const y2 = bPack[bp + 2] as number;
          const y3 = bPack[bp + 3] as number;
          c00 += x0 * y0;
          c01 += x0 * y1;
          c02 += x0 * y2;
          c03 += x0 * y3;
          c10 += x1 * y0;
          c11 += x1 * y1;
          c12 += x1 * y2;
          c13 += x1 * y3;
          c20 += x2 * y0;
          c21 += x2 * y1;
          c22 += x2 * y2;
          c23 += x2 * y3;
          c30 += x3 * y0;
          c31 += x3 * y1;
          c32 += x3 * y2;
          c33 += x3 * y3;
        }
        const r0 = cOffset + i * n + j;
        const r1 = r0 + n;
        const r2 = r1 + n;
        const r3 = r2 + n;
        c[r0] = (c[r0] as number) + c00;
        c[r0 + 1] = (c[r0 + 1] as number) + c01;
        c[r0 + 2] = (c[r0 + 2] as number) + c02;
        c[r0 + 3] = (c[r0 + 3] as number) + c03;
        c[r1] = (c[r1] as number) + c10;
        c[r1 + 1] = (c[r1 + 1] as number) + c11;
        c[r1 + 2] = (c[r1 + 2] as number) + c12;
        c[r1 + 3] = (c[r1 + 3] as number) + c13;
        c[r2] = (c[r2] as number) + c20;
        c[r2 + 1] = (c[r2 + 1] as number) + c21;
        c[r2 + 2] = (c[r2 + 2] as number) + c22;
        c[r2 + 3] = (c[r2 + 3] as number) + c23;
        c[r3] = (c[r3] as number) + c30;
        c[r3 + 1] = (c[r3 + 1] as number) + c31;
        c[r3 + 2] = (c[r3 + 2] as number) + c32;
        c[r3 + 3] = (c[r3 + 3] as number) + c33;
      }
      // leftover columns of this row block
      if (nFull < n) rowsTimesColumns(a, aOffset, b, bOffset, c, cOffset, { m, k, n }, i, i + 4, nFull);
    } else rowsTimesColumns(a, aOffset, b, bOffset, c, cOffset, { m, k, n }, i, i + 4, 0);
  }
  if (mFull < m) rowsTimesColumns(a, aOffset, b, bOffset, c, cOffset, { m, k, n }, mFull, m, 0);
}

/** Rows [rowStart, rowEnd) × columns [colStart, n): row-streaming i-k-j loop. */
function rowsTimesColumns(
  a: FloatArray,
  aOffset: number,
  b: FloatArray,
  bOffset: number,
  c: FloatArray,
  cOffset: number,
  shape: GemmShape,
  rowStart: number,
  rowEnd: number,
  colStart: number,
): void {
  const { k, n } = shape;
  for (let i = rowStart; i < rowEnd; i++) {
    const aRow = aOffset + i * k;
    const cRow = cOffset + i * n;
    for (let p = 0; p < k; p++) {
      const av = a[aRow + p] as number;
      const bRow = bOffset + p * n;
      for (let j = colStart; j < n; j++) c[cRow + j] = (c[cRow + j] as number) + av * (b[bRow + j] as number);
    }
  }
}
