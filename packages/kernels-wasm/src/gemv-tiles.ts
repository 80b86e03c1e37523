import { simdKernels } from './kernel-modules.js';
import { type NumberTuple, tileFunction } from './tiles.js';
import { float32Of } from './memory-views.js';

/** Most rows of A the column GEMV takes (a decode step's M); more go to the GEMM. */
export const GEMV_MAX_ROWS = 4;
/** Bytes of one Y row kept hot per strip: with the strip of B rows it stays in a core's L2. */
const STRIP_BYTES = 512 * 1024;

/** Whether C = A·B with `m` rows of A is a decode-shaped GEMV the column kernel should run. */
export function useGemv(m: number, n: number, k: number): boolean {
  return m >= 1 && m <= GEMV_MAX_ROWS && n >= 16 && k >= 4;
}

const GEMV_COLUMNS = 'simd.gemvColumns';
/** Args: a, lda, b, ldb, y, ldy (bytes and byte strides), m, k, n; columns past n & ~3 in JS. */
export const gemvColumnsTile = tileFunction(GEMV_COLUMNS, (memory, t) => {
  const [a, lda, b, ldb, y, ldy, m, k, n] = t as number[] as NumberTuple<9>;
  const kernels = simdKernels(memory);
  if (!kernels) throw new Error('gemvColumns tile without WebAssembly SIMD');
  const done = n - (n % 4);
  if (done > 0) kernels.gemvColumns(a, lda, b, ldb, y, ldy, m, k, done, Math.max(16, Math.floor(STRIP_BYTES / m / 16) * 16));
  if (done === n) return;
  const all = float32Of(memory);
  for (let i = 0; i < m; i++)
    for (let j = done; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (all[(a + i * lda) / 4 + p] as number) * (all[(b + p * ldb) / 4 + j] as number);
      all[(y + i * ldy) / 4 + j] = s;
    }
});

/**
 * The column ranges [n0, n1) of Y[m×n] = A[m×k]·B[k×n]: four per thread, each a contiguous run of
 * columns (multiples of 16), so every row of B is read in runs of tens of KB and a thread slowed by
 * other load leaves its later tiles to the others.
 */
export function gemvRanges(m: number, n: number, k: number, threads: number): [number, number][] {
  // at least 256 K multiply-adds a tile, so a small GEMV is not scattered over the pool
  const wanted = Math.max(1, Math.min(threads > 1 ? 4 * threads : 1, Math.floor((n * m * k) / (1 << 18)), Math.ceil(n / 16)));
  const size = Math.ceil(n / wanted / 16) * 16;
  const pieces: [number, number][] = [];
  for (let start = 0; start < n; start += size) pieces.push([start, Math.min(n, start + size)]);
  return pieces;
}

/** `simd.gemvColumns` arguments for column ranges of Y[m×n] = A[m×k]·B[k×n] (byte addresses, strides in elements). */
export function gemvTileArgs(
  ranges: readonly (readonly [number, number])[],
  m: number,
  k: number,
  a: { byte: number; ld: number },
  b: { byte: number; ld: number },
  y: { byte: number; ld: number },
): number[][] {
  return ranges.map(([n0, n1]) => [a.byte, a.ld * 4, b.byte + n0 * 4, b.ld * 4, y.byte + n0 * 4, y.ld * 4, m, k, n1 - n0]);
}

/** The column tiles of Y[m×n] = A[m×k]·B[k×n] (`gemvRanges`) as `simd.gemvColumns` arguments. */
export function gemvTiles(
  m: number,
  n: number,
  k: number,
  a: { byte: number; ld: number },
  b: { byte: number; ld: number },
  y: { byte: number; ld: number },
  threads: number,
): number[][] {
  return gemvTileArgs(gemvRanges(m, n, k, threads), m, k, a, b, y);
}
