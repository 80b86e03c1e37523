import type { AttrValue, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { simdSoftmaxKernel } from './simd-softmax.js';
import { type Operand, maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'Softmax' && k.name === 'reference') as KernelV1;
const kernel = simdSoftmaxKernel(reference);

/** Runs with an opset (the support context says 21) by wrapping the kernel. */
const atOpset = (k: KernelV1, opsetVersion: number): KernelV1 => ({
  ...k,
  compute: (ctx: KernelContextV1) => k.compute({ ...ctx, opsetVersion }),
});

function compare(
  input: Operand,
  attrs: Record<string, AttrValue>,
  options: { shared?: boolean; inPlace?: boolean; opset?: number } = {},
): void {
  const opset = options.opset ?? 21;
  const expected = runKernel(atOpset(reference, opset), { opType: 'Softmax', inputs: [input], attrs });
  const actual = runKernel(atOpset(kernel, opset), {
    opType: 'Softmax',
    inputs: [input],
    attrs,
    memory: wasmMemory(options.shared ?? false),
    ...(options.inPlace ? { inPlace: true } : {}),
  });
  expect(actual.dims).toEqual(expected.dims);
  // probabilities: float32 exp and sum against float64, measured against max(|p|, 1e-6)
  expect(maxRelativeError(actual.values, expected.values, 1e-6)).toBeLessThanOrEqual(2e-6);
}

describe.skipIf(!hasWasmSimd())('wasm SIMD Softmax', () => {
  for (const dims of [
    [1, 40, 6625],
    [3, 7],
    [2, 5, 1],
    [1, 8, 33, 33],
    [4, 1],
  ]) {
    for (const shared of [false, true]) {
      it(`last axis of [${dims}], ${shared ? 'shared' : 'plain'} memory`, () => {
        compare(operand(dims, 9, 6), {}, { shared });
        compare(operand(dims, 10, 6), { axis: { kind: 'int', value: dims.length - 1 } }, { shared, inPlace: true });
      });
    }
  }

  it('flattens from axis before opset 13 and falls back for inner axes', () => {
    compare(operand([2, 3, 5], 4), { axis: { kind: 'int', value: 1 } }, { opset: 11 });
    compare(operand([2, 3, 5], 4), { axis: { kind: 'int', value: 1 } });
  });

  it('handles wide ranges, -Infinity and NaN like the reference', () => {
    const values = Float32Array.from([
      0,
      -100,
      80,
      -Infinity,
      3,
      3,
      3,
      50,
      Number.NaN,
      1,
      2,
      3,
      -Infinity,
      -Infinity,
      -Infinity,
      -Infinity,
    ]);
    compare({ dims: [4, 4], values }, {});
  });
});
