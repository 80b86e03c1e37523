import type { AttrValue, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { simdLrnKernel } from './simd-lrn.js';
import { type Operand, maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';
import { runTile } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'LRN' && k.name === 'reference') as KernelV1;
const kernel = simdLrnKernel(reference);
const int = (value: number): AttrValue => ({ kind: 'int', value });
const float = (value: number): AttrValue => ({ kind: 'float', value });

/** The kernel with a thread pool of `threads` that runs its tiles here, in reverse order. */
const withThreads = (k: KernelV1, threads: number): KernelV1 => ({
  ...k,
  compute: (ctx: KernelContextV1) =>
    k.compute({
      ...ctx,
      parallel: {
        threads,
        run: (name, tiles) => {
          for (const t of [...tiles].reverse()) runTile(ctx.memory as NonNullable<typeof ctx.memory>, name, t);
        },
      },
    }),
});

function compare(input: Operand, attrs: Record<string, AttrValue>, where: 'host' | 'plain' | 'shared' | 'threads'): void {
  const expected = runKernel(reference, { opType: 'LRN', inputs: [input], attrs });
  const actual = runKernel(where === 'threads' ? withThreads(kernel, 3) : kernel, {
    opType: 'LRN',
    inputs: [input],
    attrs,
    ...(where === 'host' ? {} : { memory: wasmMemory(where === 'shared') }),
  });
  expect(actual.dims).toEqual(expected.dims);
  expect(maxRelativeError(actual.values, expected.values, 1e-6)).toBeLessThanOrEqual(1e-5);
}

describe('fast LRN', () => {
  const cases: readonly (readonly [readonly number[], Record<string, AttrValue>])[] = [
    [[1, 16, 9, 11], { size: int(5) }],
    [[2, 7, 5, 6], { size: int(3), alpha: float(0.01), beta: float(0.5), bias: float(2) }],
    [[1, 6, 40, 41], { size: int(4), alpha: float(0.02), beta: float(1.3) }],
    [[1, 5, 3], { size: int(9), alpha: float(0.1) }],
    [[3, 4], { size: int(2), alpha: float(0.5), beta: float(0.75), bias: float(0.5) }],
    [[1, 9, 2, 2, 3], { size: int(1), alpha: float(1), beta: float(1) }],
    [[1, 1, 7, 7], { size: int(5) }],
    [[1, 40, 3, 5], { size: int(35), alpha: float(0.01) }],
    [[13, 6, 2, 3], { size: int(3), alpha: float(0.1) }],
  ];
  for (const [dims, attrs] of cases) {
    for (const where of ['host', 'plain', 'shared', 'threads'] as const) {
      it(`matches the reference on [${dims}] size ${(attrs.size as { value: number }).value}, ${where}`, () => {
        compare(operand(dims, dims.length + (dims[1] as number), 3), attrs, where);
      });
    }
  }

  it('keeps precision when large channels leave the window', () => {
    const dims = [1, 12, 3, 5];
    const values = operand(dims, 5).values.map((v, i) => (Math.floor(i / 15) % 4 === 0 ? v * 1e5 : v * 1e-3));
    compare({ dims, values }, { size: int(3), alpha: float(1), bias: float(1e-6) }, 'plain');
  });

  it('spreads NaN and infinity only over their window, like the reference', () => {
    const dims = [1, 8, 2, 2];
    const values = operand(dims, 7).values;
    values[4 * 2 + 1] = Number.NaN;
    values[4 * 5 + 3] = Number.POSITIVE_INFINITY;
    compare({ dims, values }, { size: int(3), alpha: float(0.1) }, 'plain');
    compare({ dims, values }, { size: int(3), alpha: float(0.1) }, 'threads');
  });

  it('falls back to the reference for a size below 1', () => {
    expect(() => runKernel(kernel, { opType: 'LRN', inputs: [operand([1, 2, 2, 2], 1)], attrs: { size: int(0) } })).not.toThrow(TypeError);
  });
});
