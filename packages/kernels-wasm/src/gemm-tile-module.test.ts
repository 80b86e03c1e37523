import { describe, expect, it } from 'vitest';
import { extraModule } from './extra-modules.js';
import { hasWasmSimd } from './kernel-modules.js';
import { wasmMemory } from './simd-test-support.fixture.js';
import { GEMM_ACCUMULATE, GEMM_BIAS, GEMM_CLAMP, gemmTileFunction } from './gemm-tile-module.js';

type GemmTile = (...args: number[]) => void;

/** Packs row-major B[K×N] into panels of 8 columns (K rows of 8 floats each, zero-padded). */
function pack(b: Float32Array, K: number, N: number): Float32Array {
  const out = new Float32Array(Math.ceil(N / 8) * K * 8);
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) out[((n >> 3) * K + k) * 8 + (n & 7)] = b[k * N + n] as number;
  return out;
}

function random(n: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  });
}

describe.skipIf(!hasWasmSimd())('gemmTile register-tile rows', () => {
  // every row block generates the same GEMM: odd M (row-block tails, single rows), partial panels,
  // accumulate + bias + clamp, and no write outside C[M×N] (ldc > N, guard values around)
  for (const rows of [4, 5, 6])
    for (const [M, N, K] of [
      [13, 19, 7],
      [6, 8, 33],
      [1, 3, 1],
      [23, 41, 64],
    ] as const)
      it(`${rows}×8 tiles, ${M}×${N}×${K}`, () => {
        const memory = wasmMemory(false, 4);
        const gemm = extraModule(`gemm-tile-test-${rows}`, () => [gemmTileFunction(false, false, rows)])(memory)?.gemmTile as GemmTile;
        const f32 = new Float32Array(memory.buffer);
        const a = random(M * K, 1);
        const b = random(K * N, 2);
        const bias = random(M, 3);
        const ldc = N + 3;
        const c0 = random(M * ldc, 4);
        const [A, B, C, Bias, tmp] = [1024, 32768, 131072, 200000, 256];
        f32.set(a, A / 4);
        f32.set(pack(b, K, N), B / 4);
        f32.set(c0, C / 4);
        f32.set(bias, Bias / 4);
        f32.fill(7, C / 4 + M * ldc, C / 4 + M * ldc + 64);
        const [lo, hi] = [-1.5, 1.5];
        gemm(M, N, K, A, K, B, K * 32, C, ldc, GEMM_ACCUMULATE | GEMM_BIAS | GEMM_CLAMP, Bias, lo, hi, tmp);
        for (let m = 0; m < M; m++)
          for (let n = 0; n < ldc; n++) {
            const got = f32[C / 4 + m * ldc + n] as number;
            if (n >= N) {
              expect(got).toBe(c0[m * ldc + n]);
              continue;
            }
            let s = 0;
            for (let k = 0; k < K; k++) s += (a[m * K + k] as number) * (b[k * N + n] as number);
            const want = Math.min(hi, Math.max(lo, s + (c0[m * ldc + n] as number) + (bias[m] as number)));
            expect(Math.abs(got - want)).toBeLessThan(1e-4);
          }
        for (let i = 0; i < 64; i++) expect(f32[C / 4 + M * ldc + i]).toBe(7);
      });
});
