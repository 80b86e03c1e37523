import type { AttrValue, KernelV1 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { mathKernels, nnKernels } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { simdBatchNormKernel } from './simd-batch-norm.js';
import { simdGemmKernel } from './simd-gemm.js';
import { type Operand, maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const referenceOf = (opType: string): KernelV1 => {
  const k = [...mathKernels, ...nnKernels].find((x) => x.opType === opType && x.name === 'reference');
  if (!k) throw new Error(opType);
  return k;
};
const int = (value: number): AttrValue => ({ kind: 'int', value });
const float = (value: number): AttrValue => ({ kind: 'float', value });

function compare(
  kernel: KernelV1,
  inputs: readonly (Operand | undefined)[],
  options: { attrs?: Record<string, AttrValue>; shared?: boolean; inPlace?: boolean; tolerance: number; floor?: number },
): void {
  const attrs = options.attrs ?? {};
  const expected = runKernel(referenceOf(kernel.opType), { opType: kernel.opType, inputs, attrs });
  const actual = runKernel(kernel, {
    opType: kernel.opType,
    inputs,
    attrs,
    memory: wasmMemory(options.shared ?? false, 160),
    ...(options.inPlace ? { inPlace: true } : {}),
  });
  expect(actual.dims).toEqual(expected.dims);
  // float32 sums against the reference's float64 ones: errors measured against max(|y|, floor)
  expect(maxRelativeError(actual.values, expected.values, options.floor ?? 1)).toBeLessThanOrEqual(options.tolerance);
}

describe.skipIf(!hasWasmSimd())('wasm SIMD Gemm', () => {
  const kernel = simdGemmKernel(referenceOf('Gemm'));
  const cases: readonly (readonly [number, number, number, boolean, readonly number[] | undefined])[] = [
    [1, 1000, 512, true, [1000]],
    [1, 10, 7, true, [1, 10]],
    [3, 17, 33, true, [3, 1]],
    [4, 5, 9, true, []],
    [2, 6, 16, true, undefined],
    [1, 12, 20, false, [12]],
    [5, 13, 11, false, [5, 13]],
    [7, 8, 3, false, undefined],
  ];
  for (const [m, n, k, transB, cDims] of cases) {
    for (const shared of [false, true]) {
      it(`${m}×${k} · ${transB ? `(${n}×${k})ᵀ` : `${k}×${n}`}${cDims ? ` + C[${cDims}]` : ''}, ${shared ? 'shared' : 'plain'} memory`, () => {
        const inputs = [operand([m, k], m + k), operand(transB ? [n, k] : [k, n], n), cDims ? operand(cDims, 3) : undefined];
        // a dot product of k float32 terms of mean magnitude 4 rounds against a scale of about 4k
        const floor = 4 * k;
        compare(kernel, inputs, { attrs: { transB: int(transB ? 1 : 0) }, shared, tolerance: 1e-6, floor });
        compare(kernel, inputs, {
          attrs: { transB: int(transB ? 1 : 0), alpha: float(0.5), beta: float(-2) },
          shared,
          tolerance: 1e-6,
          floor,
        });
      });
    }
  }
  it('falls back to the reference kernel for transA and host memory', () => {
    const inputs = [operand([6, 2], 1), operand([6, 3], 2), operand([3], 3)];
    compare(kernel, inputs, { attrs: { transA: int(1) }, tolerance: 0 });
    const plain = [operand([2, 6], 1), operand([6, 3], 2)];
    const expected = runKernel(referenceOf('Gemm'), { opType: 'Gemm', inputs: plain });
    expect([...runKernel(kernel, { opType: 'Gemm', inputs: plain }).values]).toEqual([...expected.values]);
  });
});

describe.skipIf(!hasWasmSimd())('wasm SIMD BatchNormalization', () => {
  const kernel = simdBatchNormKernel(referenceOf('BatchNormalization'));
  const params = (c: number): Operand[] => {
    const variance = operand([c], 41);
    return [operand([c], 11), operand([c], 21), operand([c], 31), { dims: [c], values: variance.values.map((v) => Math.abs(v) + 0.1) }];
  };
  for (const dims of [
    [1, 8, 13, 13],
    [2, 3, 4, 5],
    [3, 16],
    [1, 4, 2, 3, 5],
  ]) {
    for (const shared of [false, true]) {
      it(`[${dims}], ${shared ? 'shared' : 'plain'} memory`, () => {
        const inputs = [operand(dims, 5), ...params(dims[1] as number)];
        compare(kernel, inputs, { shared, tolerance: 1e-6 });
        compare(kernel, inputs, { shared, attrs: { epsilon: float(1e-3) }, inPlace: true, tolerance: 1e-6 });
      });
    }
  }
});
