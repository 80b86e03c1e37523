import type { AttrValue, KernelV1 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { simdSwishKernel } from './simd-swish.js';
import { type Operand, maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'Swish' && k.name === 'reference') as KernelV1;
const kernel = simdSwishKernel(reference);

function compare(input: Operand, attrs: Record<string, AttrValue>, options: { shared?: boolean; inPlace?: boolean } = {}): void {
  const expected = runKernel(reference, { opType: 'Swish', inputs: [input], attrs });
  const actual = runKernel(kernel, { opType: 'Swish', inputs: [input], attrs, memory: wasmMemory(options.shared ?? false), ...options });
  expect(actual.dims).toEqual(expected.dims);
  expect(maxRelativeError(actual.values, expected.values, 1e-30)).toBeLessThanOrEqual(1e-5);
}

describe.skipIf(!hasWasmSimd())('wasm SIMD Swish', () => {
  for (const dims of [[1, 16, 9, 11], [7], [2, 3, 1]]) {
    for (const shared of [false, true]) {
      it(`matches the reference on [${dims}], ${shared ? 'shared' : 'plain'} memory`, () => {
        compare(operand(dims, 3, 4), {}, { shared });
        compare(operand(dims, 4, 4), { alpha: { kind: 'float', value: 1.702 } }, { shared });
      });
    }
  }

  it('covers the tails, zero and NaN, and falls back when written in place', () => {
    const values = Float32Array.from([-100, -30, -1e-3, 0, -0, 1e-3, 30, 100, Number.NaN, Number.NEGATIVE_INFINITY, 88, -88]);
    compare({ dims: [values.length], values }, {});
    compare({ dims: [values.length], values }, {}, { inPlace: true });
  });
});
