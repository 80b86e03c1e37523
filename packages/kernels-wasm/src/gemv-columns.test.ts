// The column GEMV of decode-shaped MatMul (1–4 rows of A, B row-major): float64 sums by hand as the
// golden, over K and N tails (k % 4, n % 4 and n % 16 not 0), split into tiles run out of order.
import { describe, expect, it } from 'vitest';
import { mathKernels } from '@tsge/kernels-js/kernel-support';
import { gemvTiles, useGemv } from './gemv-tiles.js';
import { hasWasmSimd } from './kernel-modules.js';
import { simdMatMulKernel } from './simd-matmul.js';
import { type Operand, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const reference = mathKernels.find((k) => k.opType === 'MatMul');

function byHand(a: Operand, b: Operand, m: number, k: number, n: number): Float64Array {
  const y = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (a.values[i * k + p] as number) * (b.values[p * n + j] as number);
      y[i * n + j] = s;
    }
  return y;
}

describe.skipIf(!hasWasmSimd())('wasm SIMD MatMul, column GEMV (decode rows)', () => {
  for (const [batch, m, k, n, threads] of [
    [1, 1, 896, 4099, 2],
    [1, 2, 37, 1003, 4],
    [1, 3, 4, 64, 1],
    [2, 2, 129, 530, 3],
    [1, 4, 1027, 2051, 2],
  ] as const)
    it(`[${batch}, ${m}, ${k}] · [${k}, ${n}] on ${threads} threads`, () => {
      const a = operand([batch, m, k], k + n);
      const b = operand([k, n], m * 7 + 1);
      const actual = runKernel(simdMatMulKernel(reference!), { opType: 'MatMul', inputs: [a, b], memory: wasmMemory(true, 256), threads });
      expect(actual.dims).toEqual([batch, m, n]);
      const want = byHand(a, b, batch * m, k, n);
      let worst = 0;
      for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs((actual.values[i] as number) - (want[i] as number)));
      // float32 sums of k terms of |x| <= 0.25 each
      expect(worst).toBeLessThan(1e-6 * k);
    });

  it('takes 1 to 4 rows only, and splits columns into contiguous tiles covering n once', () => {
    expect(useGemv(1, 151936, 896)).toBe(true);
    expect(useGemv(4, 64, 64)).toBe(true);
    expect(useGemv(5, 151936, 896)).toBe(false);
    const tiles = gemvTiles(1, 151936, 896, { byte: 0, ld: 896 }, { byte: 4096, ld: 151936 }, { byte: 8192, ld: 151936 }, 2);
    expect(tiles.length).toBe(8);
    let next = 0;
    for (const t of tiles) {
      expect(t[2]).toBe(4096 + next * 4);
      expect(t[4]).toBe(8192 + next * 4);
      next += t[8] as number;
    }
    expect(next).toBe(151936);
  });
});
