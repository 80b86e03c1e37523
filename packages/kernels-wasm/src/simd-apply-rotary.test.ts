import { type KernelContextV1, type KernelV1, TsgeError, attr } from '@tsge/metadef';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { simdApplyRotaryKernel } from './simd-apply-rotary.js';
import { maxRelativeError, operand, runKernel, runTile, wasmMemory } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'ApplyRotary' && k.name === 'reference') as KernelV1;
const kernel = simdApplyRotaryKernel(reference);

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

describe('SIMD ApplyRotary', () => {
  // x, cos/sin; last axes with an odd half (scalar tail only, or a vector and a tail) and even halves
  const cases: readonly (readonly [readonly number[], readonly number[]])[] = [
    [
      [1, 4, 7, 64],
      [1, 1, 7, 64],
    ],
    [
      [2, 3, 5, 10],
      [5, 10],
    ],
    [
      [2, 3, 5, 6],
      [2, 1, 5, 6],
    ],
    [
      [3, 9, 2],
      [9, 2],
    ],
    [
      [2, 33, 22],
      [1, 22],
    ],
    [[16], [16]],
    [
      [4, 5, 8],
      [4, 5, 8],
    ],
    [
      [2, 3, 4, 18],
      [2, 3, 1, 18],
    ],
  ];
  for (const [xDims, cDims] of cases) {
    for (const where of ['plain', 'shared', 'threads'] as const) {
      it(`x [${xDims}], cos/sin [${cDims}] (${where}) equals the reference`, () => {
        const inputs = [operand(xDims, 1), operand(cDims, 2), operand(cDims, 3)];
        const expected = runKernel(reference, { opType: 'ApplyRotary', inputs });
        const memory = wasmMemory(where === 'shared');
        const actual = runKernel(where === 'threads' ? withThreads(kernel, 3) : kernel, { opType: 'ApplyRotary', inputs, memory });
        expect(actual.dims).toEqual(xDims);
        // float32 products against float64 ones: relative to max(|y|, 1)
        expect(maxRelativeError(actual.values, expected.values, 1)).toBeLessThanOrEqual(1e-6);
      });
    }
  }

  for (const [xDims, cDims] of cases)
    for (const where of ['plain', 'threads'] as const)
      it(`interleaved pairs: x [${xDims}], cos/sin [${cDims}] (${where}) equals the reference`, () => {
        const inputs = [operand(xDims, 4), operand(cDims, 5), operand(cDims, 6)];
        const attrs = { interleaved: attr.int(1) };
        const expected = runKernel(reference, { opType: 'ApplyRotary', inputs, attrs });
        const actual = runKernel(where === 'threads' ? withThreads(kernel, 3) : kernel, {
          opType: 'ApplyRotary',
          inputs,
          attrs,
          memory: wasmMemory(false),
        });
        expect(maxRelativeError(actual.values, expected.values, 1)).toBeLessThanOrEqual(1e-6);
      });

  it('rotates adjacent pairs: x = [1, 2, 3, 4], cos = 0, sin = 1, interleaved, gives [-2, 1, -4, 3]', () => {
    const inputs = [
      { dims: [4], values: Float32Array.of(1, 2, 3, 4) },
      { dims: [4], values: Float32Array.of(0, 0, 0, 0) },
      { dims: [4], values: Float32Array.of(1, 1, 1, 1) },
    ];
    const attrs = { interleaved: attr.int(1) };
    expect([...runKernel(kernel, { opType: 'ApplyRotary', inputs, attrs, memory: wasmMemory(false) }).values]).toEqual([-2, 1, -4, 3]);
    expect([...runKernel(reference, { opType: 'ApplyRotary', inputs, attrs }).values]).toEqual([-2, 1, -4, 3]);
  });

  it('rotates half: x = [1, 2, 3, 4], cos = 0, sin = 1 gives [-3, -4, 1, 2]', () => {
    const inputs = [
      { dims: [4], values: Float32Array.of(1, 2, 3, 4) },
      { dims: [4], values: Float32Array.of(0, 0, 0, 0) },
      { dims: [4], values: Float32Array.of(1, 1, 1, 1) },
    ];
    expect([...runKernel(kernel, { opType: 'ApplyRotary', inputs, memory: wasmMemory(false) }).values]).toEqual([-3, -4, 1, 2]);
    expect([...runKernel(reference, { opType: 'ApplyRotary', inputs }).values]).toEqual([-3, -4, 1, 2]);
  });

  it('a cos whose last axis is not x’s is a coded error', () => {
    const inputs = [operand([2, 8], 1), operand([2, 4], 2), operand([2, 8], 3)];
    for (const k of [kernel, reference]) {
      let caught: unknown;
      try {
        runKernel(k, { opType: 'ApplyRotary', inputs, memory: wasmMemory(false) });
      } catch (e) {
        caught = e;
      }
      expect(TsgeError.isInstance(caught) && caught.code).toBe('TSGE-E4003');
    }
  });
});
