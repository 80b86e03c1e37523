import { type AttrValue, type KernelV1, TsgeError, createAttrReader } from '@tsge/metadef';
import { mathKernels } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { ComputedMatMulPath } from './computed-matmul-plan.js';
import { hasWasmSimd } from './kernel-modules.js';
import { MATMUL_PLAN } from './matmul-plan.js';
import { describeKernelPlan } from './plan-descriptions.js';
import { simdMatMulKernel } from './simd-matmul.js';
import { maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const reference = mathKernels.find((k) => k.opType === 'MatMul' && k.name === 'reference') as KernelV1;
const kernel = simdMatMulKernel(reference);

function planFor(a: number[], b: number[], threads: number): AttrValue {
  const planned = kernel.plan?.({
    nodeName: 'mm',
    opType: 'MatMul',
    attrs: createAttrReader(new Map()),
    inputs: [
      { dims: a, type: 'float32' },
      { dims: b, type: 'float32' },
    ],
    threads,
  });
  expect(planned?.map(([name]) => name)).toEqual([MATMUL_PLAN]);
  return planned?.[0]?.[1] as AttrValue;
}

function run(a: number[], b: number[], plan: AttrValue | undefined, threads: number) {
  const A = operand(a, a.length * 7 + (a[0] as number));
  const B = operand(b, (b[b.length - 1] as number) + 3);
  const attrs: Record<string, AttrValue> = plan ? { [MATMUL_PLAN]: plan } : {};
  const y = runKernel(kernel, { opType: 'MatMul', inputs: [A, B], attrs, memory: wasmMemory(true, 256), threads });
  return { y, expected: runKernel(reference, { opType: 'MatMul', inputs: [A, B] }) };
}

describe.skipIf(!hasWasmSimd())('MatMul with a computed B: plans recorded at compile time', () => {
  // a decode step's GEMV, the packed GEMM over batch rows, the row-major kernel, equal batch dims
  const shapes: [number[], number[], number][] = [
    [[1, 512], [512, 2000], ComputedMatMulPath.gemvColumns],
    [[2, 64, 96], [96, 203], ComputedMatMulPath.gemmPacked],
    [[16, 40], [40, 70], ComputedMatMulPath.gemmRows],
    [[3, 70, 40], [3, 40, 50], ComputedMatMulPath.gemmPacked],
    [[4, 2, 33], [4, 33, 20], ComputedMatMulPath.gemmRows],
  ];
  for (const [a, b, path] of shapes)
    for (const [planThreads, runThreads] of [
      [4, 4],
      [4, 1],
      [3, 2],
    ] as const)
      it(`[${a}]·[${b}] planned for ${planThreads} threads, run on ${runThreads}: the unplanned run's values`, () => {
        const plan = planFor(a, b, planThreads);
        expect(plan.kind === 'ints' && plan.value.slice(0, 3)).toEqual([2, path, planThreads]);
        const { y, expected } = run(a, b, plan, runThreads);
        // the same tiles as a run that chooses them, so the same sums in the same order
        expect(Array.from(y.values)).toEqual(Array.from(run(a, b, undefined, runThreads).y.values));
        expect(y.dims).toEqual(expected.dims);
        expect(maxRelativeError(y.values, expected.values, 16)).toBeLessThan(1e-4);
      });

  it('atc --mode=6 words', () => {
    const plan = planFor([1, 512], [512, 2000], 2);
    expect(describeKernelPlan(MATMUL_PLAN, plan.value as number[])).toMatch(/^gemvColumns \(B computed\), \d+ tiles for 2 threads$/);
  });

  /** The plan for [128×40]·[40×70] on 4 threads with its ints edited. */
  const edited = (edit: (ints: number[]) => number[]): AttrValue => {
    const plan = planFor([128, 40], [40, 70], 4);
    return { kind: 'ints', value: edit([...(plan.value as number[])]) };
  };
  const cases: [string, AttrValue, RegExp][] = [
    ['a GEMV path for 128 rows', edited((v) => [2, ComputedMatMulPath.gemvColumns, ...v.slice(2)]), /gemvColumns for 128/],
    ['a PackedMatMul plan', edited((v) => [1, ...v.slice(1)]), /version 2/],
    ['a tile dropped', edited((v) => [...v.slice(0, 3), (v[3] as number) - 1, ...v.slice(8)]), /uncovered/],
    ['a tile past the last column', edited((v) => [...v.slice(0, 7), 71, ...v.slice(8)]), /outside|overlap/],
  ];
  for (const [label, plan, reason] of cases)
    it(`${label} is TSGE-E7106, not a wrong result`, () => {
      let error: unknown;
      try {
        run([128, 40], [40, 70], plan, 4);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TsgeError);
      expect((error as TsgeError).code).toBe('TSGE-E7106');
      expect((error as TsgeError).message).toMatch(reason);
    });
});
