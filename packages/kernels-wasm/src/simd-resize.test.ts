import type { AttrValue, KernelV1 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { simdResizeKernel } from './simd-resize.js';
import { type Operand, maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'Resize' && k.name === 'reference') as KernelV1;
const kernel = simdResizeKernel(reference);
const str = (value: string): AttrValue => ({ kind: 'string', value });
const ints = (value: readonly number[]): AttrValue => ({ kind: 'ints', value });
const empty: Operand = { dims: [0], values: new Float32Array(0) };
const scales = (values: readonly number[]): Operand => ({ dims: [values.length], values: Float32Array.from(values) });

function compare(inputs: readonly (Operand | undefined)[], attrs: Record<string, AttrValue>, shared: boolean): void {
  const expected = runKernel(reference, { opType: 'Resize', inputs, attrs });
  const actual = runKernel(kernel, { opType: 'Resize', inputs, attrs, memory: wasmMemory(shared, 256), threads: shared ? 4 : 1 });
  expect(actual.dims).toEqual(expected.dims);
  expect(actual.values).toEqual(expected.values);
}

describe.skipIf(!hasWasmSimd())('wasm SIMD Resize (nearest)', () => {
  const cases: readonly (readonly [string, number[], readonly (Operand | undefined)[], Record<string, AttrValue>])[] = [
    [
      '×2 asymmetric floor',
      [1, 3, 5, 9],
      [empty, scales([1, 1, 2, 2])],
      { coordinate_transformation_mode: str('asymmetric'), nearest_mode: str('floor') },
    ],
    ['×2 half_pixel round_prefer_floor', [2, 2, 4, 8], [empty, scales([1, 1, 2, 2])], {}],
    // integer factors (upsampleRows): fw 1, 2, 4, 8 and 3 (scalar), odd widths leave a vector tail
    [
      '×4 asymmetric floor',
      [1, 5, 6, 7],
      [empty, scales([1, 1, 4, 4])],
      { coordinate_transformation_mode: str('asymmetric'), nearest_mode: str('floor') },
    ],
    [
      '×8 asymmetric floor',
      [1, 3, 5, 9],
      [empty, scales([1, 1, 8, 8])],
      { coordinate_transformation_mode: str('asymmetric'), nearest_mode: str('floor') },
    ],
    [
      '×3 asymmetric floor',
      [2, 2, 4, 5],
      [empty, scales([1, 1, 3, 3])],
      { coordinate_transformation_mode: str('asymmetric'), nearest_mode: str('floor') },
    ],
    [
      'rows ×2, columns ×1',
      [1, 2, 5, 11],
      [empty, scales([1, 1, 2, 1])],
      { coordinate_transformation_mode: str('asymmetric'), nearest_mode: str('floor') },
    ],
    [
      'rows ×2, columns ×4',
      [2, 3, 4, 6],
      [empty, scales([1, 1, 2, 4])],
      { coordinate_transformation_mode: str('asymmetric'), nearest_mode: str('floor') },
    ],
    [
      '×2 of a det head plane',
      [1, 96, 20, 20],
      [empty, scales([1, 1, 2, 2])],
      { coordinate_transformation_mode: str('asymmetric'), nearest_mode: str('floor') },
    ],
    ['×3 by 1.5 align_corners', [1, 2, 4, 6], [empty, scales([1, 1, 3, 1.5])], { coordinate_transformation_mode: str('align_corners') }],
    ['down 0.5 round_prefer_ceil', [1, 2, 8, 9], [empty, scales([1, 1, 0.5, 0.5])], { nearest_mode: str('round_prefer_ceil') }],
    [
      'sizes 7×13 pytorch_half_pixel ceil',
      [1, 4, 5, 6],
      [empty, empty, { dims: [4], values: Float32Array.of(1, 4, 7, 13) }],
      { coordinate_transformation_mode: str('pytorch_half_pixel'), nearest_mode: str('ceil') },
    ],
    ['axes [2,3] ×2', [1, 2, 3, 7], [empty, scales([2, 2])], { axes: ints([2, 3]) }],
  ];
  for (const [label, dims, rest, attrs] of cases) {
    for (const shared of [false, true]) {
      it(`${label} on [${dims}], ${shared ? 'shared' : 'plain'} memory`, () =>
        compare([operand(dims, 3), ...rest], { mode: str('nearest'), ...attrs }, shared));
    }
  }
  it('×4 upsampling big enough for several row tiles matches y[oh][ow] = x[⌊oh/4⌋][⌊ow/4⌋]', () => {
    const [C, H, W] = [8, 128, 129];
    const x = operand([1, C, H, W], 5);
    const attrs = { mode: str('nearest'), coordinate_transformation_mode: str('asymmetric'), nearest_mode: str('floor') };
    const y = runKernel(kernel, {
      opType: 'Resize',
      inputs: [x, empty, scales([1, 1, 4, 4])],
      attrs,
      memory: wasmMemory(true, 256),
      threads: 4,
    });
    expect(y.dims).toEqual([1, C, 4 * H, 4 * W]);
    // count mismatches (a deep equal of 2 M floats is slow)
    let wrong = 0;
    for (let c = 0, o = 0; c < C; c++)
      for (let oh = 0; oh < 4 * H; oh++)
        for (let ow = 0; ow < 4 * W; ow++, o++) if (y.values[o] !== x.values[(c * H + (oh >> 2)) * W + (ow >> 2)]) wrong++;
    expect(wrong).toBe(0);
  });
  it('falls back to the reference kernel for channel scaling', () => {
    compare([operand([1, 2, 4, 4], 1), empty, scales([1, 2, 2, 2])], { mode: str('nearest') }, false);
  });
});

describe.skipIf(!hasWasmSimd())('wasm Resize (linear and cubic, separable row tiles)', () => {
  it('×2 half_pixel bilinear of an NHWC image matches the hand-computed values', () => {
    // channel 0 [[1, 2], [3, 4]], channel 1 ten times it; 1-D half_pixel ×2 of [a, b] is [a, .75a+.25b, .25a+.75b, b]
    const x: Operand = { dims: [1, 2, 2, 2], values: Float32Array.of(1, 10, 2, 20, 3, 30, 4, 40) };
    const plane = [1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4];
    for (const threads of [undefined, 2]) {
      const y = runKernel(kernel, {
        opType: 'Resize',
        inputs: [x, empty, scales([2, 2])],
        attrs: { mode: str('linear'), axes: ints([1, 2]) },
        memory: wasmMemory(false),
        ...(threads ? { threads } : {}),
      });
      expect(y.dims).toEqual([1, 4, 4, 2]);
      expect([...y.values]).toEqual(plane.flatMap((v) => [v, 10 * v]));
    }
  });

  const sizes = (values: readonly number[]): Operand => ({ dims: [values.length], values: Float32Array.from(values) });
  const cases: readonly (readonly [string, number[], readonly (Operand | undefined)[], Record<string, AttrValue>])[] = [
    ['NCHW ×2 half_pixel', [1, 3, 5, 9], [empty, scales([1, 1, 2, 2])], {}],
    [
      'NHWC sizes, align_corners',
      [2, 6, 7, 5],
      [empty, empty, sizes([13, 11])],
      { axes: ints([1, 2]), coordinate_transformation_mode: str('align_corners') },
    ],
    ['NHWC ×2 asymmetric, width only', [1, 4, 6, 3], [empty, scales([1, 1, 2, 1])], { coordinate_transformation_mode: str('asymmetric') }],
    [
      'rank 3, last axis only, pytorch_half_pixel',
      [3, 4, 10],
      [empty, scales([1, 1, 0.7])],
      { coordinate_transformation_mode: str('pytorch_half_pixel') },
    ],
    [
      'cubic NCHW ×1.5, exclude_outside',
      [1, 2, 6, 6],
      [empty, scales([1, 1, 1.5, 1.5])],
      { mode: str('cubic'), exclude_outside: { kind: 'int', value: 1 } },
    ],
    ['linear antialias down 0.4', [1, 2, 20, 15], [empty, scales([1, 1, 0.4, 0.4])], { antialias: { kind: 'int', value: 1 } }],
    [
      'tf_crop_and_resize (reference)',
      [1, 1, 4, 4],
      [{ dims: [8], values: Float32Array.of(0, 0, 0.2, -0.5, 1, 1, 0.9, 1.5) }, scales([1, 1, 2, 2])],
      { coordinate_transformation_mode: str('tf_crop_and_resize') },
    ],
  ];
  for (const [label, dims, rest, attrs] of cases) {
    it(`${label} on [${dims}] matches the reference kernel`, () => {
      const inputs = [operand(dims, 5), ...rest];
      const all = { mode: str('linear'), ...attrs };
      const expected = runKernel(reference, { opType: 'Resize', inputs, attrs: all });
      for (const threads of [undefined, 3]) {
        const actual = runKernel(kernel, {
          opType: 'Resize',
          inputs,
          attrs: all,
          memory: wasmMemory(true),
          ...(threads ? { threads } : {}),
        });
        expect(actual.dims).toEqual(expected.dims);
        expect(maxRelativeError(actual.values, expected.values)).toBeLessThan(1e-6);
      }
    });
  }

  it('skips taps of weight 0 as the reference does: an infinity spreads only where it is weighed', () => {
    // align_corners 3 → 5: every other output sits on an input, its second tap weighs 0 (0·∞ would be NaN)
    for (const [dims, axes, size] of [
      [
        [1, 2, 3, 3],
        [2, 3],
        [5, 5],
      ],
      [
        [1, 3, 3, 4],
        [1, 2],
        [5, 5],
      ],
    ] as const) {
      const values = operand([...dims], 3).values as Float32Array;
      values[4 * (dims[3] === 4 ? 4 : 1)] = Number.POSITIVE_INFINITY;
      const inputs = [{ dims: [...dims], values }, empty, empty, sizes(size)];
      const attrs = { mode: str('linear'), axes: ints(axes), coordinate_transformation_mode: str('align_corners') };
      const expected = runKernel(reference, { opType: 'Resize', inputs, attrs });
      const actual = runKernel(kernel, { opType: 'Resize', inputs, attrs, memory: wasmMemory(true), threads: 2 });
      const e = [...expected.values] as number[];
      const a = [...actual.values] as number[];
      expect(a.map(Number.isFinite)).toEqual(e.map(Number.isFinite));
      expect(a.map(Number.isNaN)).toEqual(e.map(Number.isNaN));
      expect(e.some((v) => v === Number.POSITIVE_INFINITY) && e.some(Number.isFinite)).toBe(true);
      const finite = (v: readonly number[]): Float32Array => Float32Array.from(v, (x) => (Number.isFinite(x) ? x : 0));
      expect(maxRelativeError(finite(a), finite(e))).toBeLessThan(1e-6);
    }
  });

  it('splits a large NHWC image into several row tiles across threads', () => {
    const inputs = [operand([1, 64, 64, 8], 9), empty, scales([1, 2, 2, 1])];
    const attrs = { mode: str('linear') };
    const expected = runKernel(reference, { opType: 'Resize', inputs, attrs });
    const actual = runKernel(kernel, { opType: 'Resize', inputs, attrs, memory: wasmMemory(true), threads: 2 });
    expect(maxRelativeError(actual.values, expected.values)).toBeLessThan(1e-6);
  });
});
