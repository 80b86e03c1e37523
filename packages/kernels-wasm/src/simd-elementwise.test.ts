import type { AttrValue, KernelV1 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { mathKernels, nnKernels } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { simdElementwiseKernels } from './simd-elementwise.js';
import { type Operand, maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const referenceOf = (opType: string): KernelV1 => {
  const k = [...mathKernels, ...nnKernels].find((x) => x.opType === opType && x.name === 'reference');
  if (!k) throw new Error(opType);
  return k;
};
const simd = simdElementwiseKernels(referenceOf);
const simdOf = (opType: string): KernelV1 => simd.find((k) => k.opType === opType) as KernelV1;

function compare(
  opType: string,
  inputs: readonly (Operand | undefined)[],
  options: {
    attrs?: Record<string, AttrValue>;
    shared?: boolean;
    inPlace?: boolean;
    skew?: number;
    tolerance?: number;
    /** Below this magnitude errors are absolute (ops whose float32 formula cancels near zero). */
    floor?: number;
    /** Offer a pool of this many threads (tiles run here, last first) and this many memory pages. */
    threads?: number;
    pages?: number;
  } = {},
): void {
  const expected = runKernel(referenceOf(opType), { opType, inputs, ...(options.attrs ? { attrs: options.attrs } : {}) });
  const actual = runKernel(simdOf(opType), {
    opType,
    inputs,
    memory: wasmMemory(options.shared ?? false, options.pages ?? 64),
    ...(options.threads ? { threads: options.threads } : {}),
    ...(options.attrs ? { attrs: options.attrs } : {}),
    ...(options.inPlace ? { inPlace: true } : {}),
    ...(options.skew ? { skew: options.skew } : {}),
  });
  expect(actual.dims).toEqual(expected.dims);
  expect(maxRelativeError(actual.values, expected.values, options.floor ?? 1e-30)).toBeLessThanOrEqual(options.tolerance ?? 0);
}

const f = (value: number): AttrValue => ({ kind: 'float', value });

describe.skipIf(!hasWasmSimd())('wasm SIMD elementwise kernels', () => {
  const shapes: readonly (readonly [readonly number[], readonly number[]])[] = [
    [
      [2, 3, 5, 7],
      [2, 3, 5, 7],
    ],
    [[1, 8, 9, 9], [1]],
    [[1], [3, 33]],
    [
      [2, 16, 5, 5],
      [16, 1, 1],
    ],
    [
      [1, 16, 6, 6],
      [1, 16, 1, 1],
    ],
    [
      [16, 1, 1],
      [2, 16, 4, 5],
    ],
    [
      [2, 4, 17],
      [2, 4, 17],
    ],
    [[3, 40], [40]],
    [
      [2, 3, 4],
      [3, 1],
    ],
    [[1], [1]],
    [[5], [1]],
  ];
  for (const opType of ['Add', 'Sub', 'Mul', 'Div']) {
    for (const [aDims, bDims] of shapes) {
      for (const shared of [false, true]) {
        it(`${opType} [${aDims}] with [${bDims}], ${shared ? 'shared' : 'plain'} memory`, () => {
          compare(opType, [operand(aDims, 3), operand(bDims, 11)], { shared, skew: 1 });
        });
      }
    }
    it(`${opType} in place`, () => compare(opType, [operand([3, 37], 5), operand([3, 37], 6)], { inPlace: true }));
  }

  it('Div by zero and NaN follow IEEE float32 as the reference does', () => {
    const a: Operand = { dims: [8], values: Float32Array.from([1, -1, 0, Number.NaN, 3, 4, 5, 6]) };
    const b: Operand = { dims: [8], values: Float32Array.from([0, 0, 0, 1, Number.POSITIVE_INFINITY, 2, 3, 4]) };
    compare('Div', [a, b]);
  });

  for (const dims of [[2, 3, 5, 7], [1, 64, 3, 3], [3], [1, 16, 8, 8]]) {
    for (const shared of [false, true]) {
      it(`Sum of three [${dims}] and a per-channel operand, ${shared ? 'shared' : 'plain'} memory`, () => {
        compare('Sum', [operand(dims, 1), operand(dims, 2), operand(dims, 3)], { shared, tolerance: 1e-6 });
        if (dims.length === 4) {
          compare('Sum', [operand([dims[1] as number, 1, 1], 4), operand(dims, 5)], { shared, tolerance: 1e-6 });
        }
      });
    }
  }

  // [op, attributes, tolerance, floor]: attributes are float32 in wasm, doubles in the reference
  const unary: readonly (readonly [string, Record<string, AttrValue>?, number?, number?])[] = [
    ['Relu'],
    ['LeakyRelu', { alpha: f(0.1) }, 2.5e-7],
    ['HardSigmoid', { alpha: f(0.3), beta: f(0.4) }, 5e-7, 1],
    ['HardSwish', undefined, 5e-7, 1],
    ['Sigmoid', undefined, 1e-6],
    ['Tanh', undefined, 1e-6],
  ];
  for (const [opType, attrs, tolerance, floor] of unary) {
    for (const length of [1, 3, 4, 257, 4096]) {
      for (const shared of [false, true]) {
        it(`${opType} on ${length} values, ${shared ? 'shared' : 'plain'} memory`, () => {
          compare(opType, [operand([length], length + 7, 4)], {
            shared,
            ...(attrs ? { attrs } : {}),
            tolerance: tolerance ?? 0,
            floor: floor ?? 1e-30,
          });
        });
      }
    }
    it(`${opType} in place`, () =>
      compare(opType, [operand([2, 45], 9)], {
        inPlace: true,
        ...(attrs ? { attrs } : {}),
        tolerance: tolerance ?? 0,
        floor: floor ?? 1e-30,
      }));
  }

  // split into ranges over threads: Sigmoid and Tanh from 2^17 values, the cheap ops from 2^21;
  // odd lengths leave a scalar tail in the last range
  const split: readonly (readonly [string, number, Record<string, AttrValue>?, number?, number?])[] = [
    ['Sigmoid', 140_193, undefined, 1e-6],
    ['Tanh', 140_193, undefined, 1e-6],
    ['LeakyRelu', 2_200_001, { alpha: f(0.1) }, 2.5e-7],
    ['Clip', 2_200_001, { min: f(-0.5), max: f(1.5) }],
  ];
  for (const [opType, length, attrs, tolerance] of split) {
    for (const inPlace of [false, true]) {
      it(`${opType} on ${length} values in ranges over 4 threads${inPlace ? ', in place' : ''}`, () => {
        compare(opType, [operand([length], 11, 4)], {
          shared: true,
          threads: 4,
          pages: 320,
          inPlace,
          ...(attrs ? { attrs } : {}),
          tolerance: tolerance ?? 0,
        });
      });
    }
  }

  it('Sigmoid and Tanh stay accurate over the whole float range and keep NaN', () => {
    const values = [
      0,
      -0,
      1e-8,
      -1e-8,
      1e-4,
      -3e-3,
      0.3,
      0.6249,
      0.625,
      0.63,
      -0.7,
      1,
      -2.5,
      5,
      9.1,
      -9.1,
      15,
      -20,
      40,
      -80,
      -87,
      -90,
      88,
      200,
      -200,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.NaN,
    ];
    const input: Operand = { dims: [values.length], values: Float32Array.from(values) };
    compare('Sigmoid', [input], { tolerance: 1e-6 });
    compare('Tanh', [input], { tolerance: 1e-6 });
    // dense sweep across the polynomial seams
    const sweep: Operand = { dims: [4000], values: Float32Array.from({ length: 4000 }, (_, i) => (i - 2000) / 150) };
    compare('Sigmoid', [sweep], { tolerance: 1e-6 });
    compare('Tanh', [sweep], { tolerance: 1e-6 });
  });

  it('Clip with min/max inputs, one bound, attributes and NaN', () => {
    const x: Operand = { dims: [2, 11], values: Float32Array.from({ length: 22 }, (_, i) => (i === 5 ? Number.NaN : i - 11)) };
    const scalar = (v: number): Operand => ({ dims: [], values: Float32Array.of(v) });
    compare('Clip', [x, scalar(-3), scalar(6)]);
    compare('Clip', [x, undefined, scalar(2)]);
    compare('Clip', [x, scalar(0)], { shared: true });
    compare('Clip', [x], { attrs: { min: f(-1), max: f(1) } });
    compare('Clip', [x, scalar(4), scalar(1)]);
    compare('Clip', [operand([3, 50], 4)], { inPlace: true, attrs: { min: f(0), max: f(6) } });
  });

  it('falls back to the reference kernel on host memory and other broadcasts', () => {
    const expected = runKernel(referenceOf('Add'), { opType: 'Add', inputs: [operand([4, 3], 1), operand([3], 2)] });
    const actual = runKernel(simdOf('Add'), { opType: 'Add', inputs: [operand([4, 3], 1), operand([3], 2)], memory: wasmMemory(false) });
    expect([...actual.values]).toEqual([...expected.values]);
    const host = runKernel(simdOf('Relu'), { opType: 'Relu', inputs: [{ dims: [3], values: Float32Array.of(-1, 2, -3) }] });
    expect([...host.values]).toEqual([0, 2, 0]);
  });
});
