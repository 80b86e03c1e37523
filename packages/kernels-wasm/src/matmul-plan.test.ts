import { type AttrValue, type KernelV1, TsgeError, createAttrReader } from '@tsge/metadef';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { hasWasmSimd } from './kernel-modules.js';
import { MATMUL_PLAN, MatMulPath } from './matmul-plan.js';
import { simdPackedMatMulKernel } from './simd-packed-matmul.js';
import { maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const P = 8;
const kernel: KernelV1 = simdPackedMatMulKernel(nnKernels.find((k) => k.opType === 'PackedMatMul') as KernelV1);

/** B[k×n] in 8-column panels of all K rows ([ceil(n/8), k, 8], zero past n). */
function pack(b: Float32Array, k: number, n: number): Float32Array {
  const panels = Math.ceil(n / P);
  const out = new Float32Array(panels * k * P);
  for (let q = 0; q < panels; q++)
    for (let p = 0; p < k; p++) for (let j = 0; j < P && q * P + j < n; j++) out[(q * k + p) * P + j] = b[p * n + q * P + j] as number;
  return out;
}

/** A·B in float64, the independent reference. */
function matmul(a: Float32Array, b: Float32Array, m: number, k: number, n: number): Float32Array {
  const y = new Float32Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (a[i * k + p] as number) * (b[p * n + j] as number);
      y[i * n + j] = s;
    }
  return y;
}

function planFor(rows: number, k: number, n: number, threads: number): AttrValue {
  const planned = kernel.plan?.({
    nodeName: 'mm',
    opType: 'PackedMatMul',
    attrs: createAttrReader(new Map([['n', { kind: 'int', value: n }]])),
    inputs: [
      { dims: [rows, k], type: 'float32' },
      { dims: [Math.ceil(n / P), k, P], type: 'float32' },
    ],
    threads,
  });
  expect(planned?.map(([name]) => name)).toEqual([MATMUL_PLAN]);
  return planned?.[0]?.[1] as AttrValue;
}

function run(rows: number, k: number, n: number, plan: AttrValue | undefined, threads: number) {
  const a = operand([rows, k], rows + k);
  const b = operand([k, n], n);
  const packed = { dims: [Math.ceil(n / P), k, P], values: pack(b.values, k, n) };
  const attrs: Record<string, AttrValue> = { n: { kind: 'int', value: n }, ...(plan ? { [MATMUL_PLAN]: plan } : {}) };
  const y = runKernel(kernel, { opType: 'PackedMatMul', inputs: [a, packed], attrs, memory: wasmMemory(false, 256), threads });
  return { y, expected: matmul(a.values, b.values, rows, k, n) };
}

describe.skipIf(!hasWasmSimd())('PackedMatMul plans recorded at compile time', () => {
  // rows, k, n: GEMV rows (a decode step), the GEMM, columns past the last whole panel
  const shapes: [number, number, number, number][] = [
    [1, 300, 1000, MatMulPath.gemvPanels],
    [4, 64, 37, MatMulPath.gemvPanels],
    [70, 96, 203, MatMulPath.gemm],
    [256, 512, 512, MatMulPath.gemm],
  ];
  for (const [rows, k, n, path] of shapes)
    for (const [planThreads, runThreads] of [
      [4, 4],
      [4, 1],
      [3, 4],
    ] as const)
      it(`[${rows}×${k}]·[${k}×${n}] planned for ${planThreads} threads, run on ${runThreads}`, () => {
        const plan = planFor(rows, k, n, planThreads);
        expect(plan.kind === 'ints' && plan.value.slice(0, 3)).toEqual([1, path, planThreads]);
        const { y, expected } = run(rows, k, n, plan, runThreads);
        expect(y.dims).toEqual([rows, n]);
        // float32 sums of k products against float64 ones: errors against max(|y|, 16)
        expect(maxRelativeError(y.values, expected, 16)).toBeLessThan(1e-4);
      });

  /** The plan for [70×96]·[96×203] on 4 threads with its ints edited. */
  const edited = (edit: (ints: number[]) => number[]): AttrValue => {
    const plan = planFor(70, 96, 203, 4);
    return { kind: 'ints', value: edit([...(plan.value as number[])]) };
  };
  const cases: [string, AttrValue, RegExp][] = [
    ['a GEMV path for 70 rows', edited((v) => [v[0] as number, MatMulPath.gemvPanels, ...v.slice(2)]), /gemvPanels for 70 rows/],
    ['an unknown version', edited((v) => [9, ...v.slice(1)]), /version 1/],
    ['a tile dropped', edited((v) => [...v.slice(0, 3), (v[3] as number) - 1, ...v.slice(8)]), /uncovered/],
    ['a tile starting inside a panel', edited((v) => [...v.slice(0, 6), (v[6] as number) + 4, ...v.slice(7)]), /panel|uncovered/],
    ['a tile past the last row', edited((v) => [...v.slice(0, 5), 71, ...v.slice(6)]), /outside|overlap/],
    ['a tile count that the ints do not hold', edited((v) => [...v.slice(0, 3), (v[3] as number) + 1, ...v.slice(4)]), /ints/],
  ];
  for (const [label, plan, reason] of cases)
    it(`${label} is TSGE-E7106, not a wrong result`, () => {
      let error: unknown;
      try {
        run(70, 96, 203, plan, 4);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TsgeError);
      expect((error as TsgeError).code).toBe('TSGE-E7106');
      expect((error as TsgeError).message).toMatch(reason);
    });
});
