import { type AttrValue, type KernelV1, TsgeError, createAttrReader } from '@tsge/metadef';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { hasWasmSimd } from './kernel-modules.js';
import { POOL_PLAN, PoolPath, paddedPoolLayout, poolTask } from './pool-plan.js';
import { simdPoolKernels } from './simd-pool.js';
import { maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

const referenceOf = (opType: string): KernelV1 => nnKernels.find((k) => k.opType === opType && k.name === 'reference') as KernelV1;
const simd = simdPoolKernels(referenceOf);
const simdOf = (opType: string): KernelV1 => simd.find((k) => k.opType === opType) as KernelV1;
const ints = (value: readonly number[]): AttrValue => ({ kind: 'ints', value });

function planFor(opType: string, dims: number[], attrs: Record<string, AttrValue>, threads: number): AttrValue {
  const planned = simdOf(opType).plan?.({
    nodeName: 'pool',
    opType,
    attrs: createAttrReader(new Map(Object.entries(attrs))),
    inputs: [{ dims, type: 'float32' }],
    threads,
  });
  expect(planned?.map(([name]) => name)).toEqual([POOL_PLAN]);
  return planned?.[0]?.[1] as AttrValue;
}

function compare(opType: string, dims: number[], attrs: Record<string, AttrValue>, plan: AttrValue, threads: number): void {
  const x = operand(dims, dims[1] as number);
  const expected = runKernel(referenceOf(opType), { opType, inputs: [x], attrs });
  const actual = runKernel(simdOf(opType), {
    opType,
    inputs: [x],
    attrs: { ...attrs, [POOL_PLAN]: plan },
    memory: wasmMemory(true, 256),
    threads,
  });
  expect(actual.dims).toEqual(expected.dims);
  expect(maxRelativeError(actual.values, expected.values, 1)).toBeLessThanOrEqual(1e-6);
}

describe.skipIf(!hasWasmSimd())('pooling plans recorded at compile time', () => {
  const window = { kernel_shape: ints([3, 3]), strides: ints([2, 2]), pads: ints([1, 1, 1, 1]) };
  const cases: [string, string, number[], Record<string, AttrValue>, number][] = [
    ['MaxPool 3×3 stride 2 over 96 planes', 'MaxPool', [2, 48, 56, 56], window, PoolPath.planes],
    ['AveragePool 2×2 over 3 small planes', 'AveragePool', [1, 3, 8, 9], { kernel_shape: ints([2, 2]) }, PoolPath.planes],
    ['AveragePool over whole planes', 'AveragePool', [1, 32, 7, 7], { kernel_shape: ints([7, 7]) }, PoolPath.global],
    ['MaxPool 1-D (the reference kernel)', 'MaxPool', [1, 4, 9], { kernel_shape: ints([3]) }, PoolPath.reference],
  ];
  for (const [label, opType, dims, attrs, path] of cases)
    for (const [planThreads, runThreads] of [
      [4, 4],
      [4, 1],
      [3, 4],
    ] as const)
      it(`${label}, planned for ${planThreads} threads, run on ${runThreads}`, () => {
        const plan = planFor(opType, dims, attrs, planThreads);
        expect(plan.kind === 'ints' && plan.value.slice(0, 3)).toEqual([1, path, planThreads]);
        compare(opType, dims, attrs, plan, runThreads);
      });

  it('records no plan for a MaxPool with Indices (the reference kernel runs it)', () => {
    const planned = simdOf('MaxPool').plan?.({
      nodeName: 'pool',
      opType: 'MaxPool',
      attrs: createAttrReader(new Map(Object.entries(window))),
      inputs: [{ dims: [1, 8, 16, 16], type: 'float32' }],
      threads: 2,
      outputCount: 2,
    });
    expect(planned).toBeUndefined();
  });

  it('splits the planes of a large pooling into several runs', () => {
    const plan = planFor('MaxPool', [2, 48, 56, 56], window, 4);
    expect(plan.kind === 'ints' && (plan.value[3] as number)).toBeGreaterThan(1);
  });

  /** The plan of the 96-plane MaxPool on 4 threads with its ints edited. */
  const edited = (edit: (v: number[]) => number[]): AttrValue => {
    const plan = planFor('MaxPool', [2, 48, 56, 56], window, 4);
    return ints(edit([...(plan.value as number[])]));
  };
  const bad: [string, AttrValue, RegExp][] = [
    [
      'a global path for a strided window',
      edited((v) => [v[0] as number, PoolPath.global, v[2] as number, 0]),
      /global for a pooling that takes planes/,
    ],
    ['a run dropped', edited((v) => [...v.slice(0, 3), (v[3] as number) - 1, ...v.slice(6)]), /uncovered/],
    ['overlapping runs', edited((v) => [...v.slice(0, 5), (v[5] as number) + 1, ...v.slice(6)]), /overlap|outside/],
    ['a run past the last plane', edited((v) => [...v.slice(0, -1), 97]), /outside/],
  ];
  for (const [label, plan, reason] of bad)
    it(`${label} is TSGE-E7106, not a wrong result`, () => {
      let error: unknown;
      try {
        compare('MaxPool', [2, 48, 56, 56], window, plan, 4);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TsgeError);
      expect((error as TsgeError).code).toBe('TSGE-E7106');
      expect((error as TsgeError).message).toMatch(reason);
    });

  describe('padded-band layout', () => {
    const layout = (kind: 'max' | 'avg', dims: number[], attrs: Record<string, AttrValue>, bytes = 1 << 20) => {
      const task = poolTask(createAttrReader(new Map(Object.entries(attrs))), dims);
      if (!task) throw new Error('not a 2-D pooling');
      return paddedPoolLayout(task, kind, bytes);
    };
    const p1 = { kernel_shape: ints([3, 3]), pads: ints([1, 1, 1, 1]) };

    it('covers whole 4-output steps and the input row, one band a plane when it fits', () => {
      // 27 outputs: 7 steps, reads up to column 27 + 2 of 30 padded; stride 2 over 55 columns: 2·28 + 2
      expect(layout('max', [1, 8, 27, 27], p1)).toEqual({ Wp: 32, bandOut: 27, Hb: 29, bandOffset: 128 });
      expect(layout('max', [1, 8, 55, 55], { kernel_shape: ints([3, 3]), strides: ints([2, 2]) })).toEqual({
        Wp: 60,
        bandOut: 27,
        Hb: 55,
        bandOffset: 128,
      });
    });

    it('splits the output rows into bands that fit the workspace', () => {
      // 4096 − 128 bytes hold 31 rows of 32 floats: 29 output rows need 31, so bands of 29 then 3
      expect(layout('avg', [1, 1, 40, 27], p1, 4096)).toMatchObject({ bandOut: 29, Hb: 31 });
      expect(layout('avg', [1, 1, 40, 27], p1, 256)).toBeUndefined();
    });

    it('leaves dilated MaxPool, one-column outputs, stride 3 and windows past the input to the window kernels', () => {
      expect(layout('max', [1, 1, 9, 9], { ...p1, dilations: ints([2, 2]) })).toBeUndefined();
      expect(layout('avg', [1, 1, 9, 9], { ...p1, dilations: ints([2, 2]) })).toBeDefined();
      expect(layout('avg', [1, 1, 6, 6], { kernel_shape: ints([7, 7]), pads: ints([0, 0, 1, 1]) })).toBeUndefined();
      expect(layout('max', [1, 1, 9, 9], { ...p1, strides: ints([3, 3]) })).toBeUndefined();
      expect(layout('max', [1, 1, 8, 8], { kernel_shape: ints([2, 2]), strides: ints([3, 3]), pads: ints([0, 0, 4, 4]) })).toBeUndefined();
    });
  });
});
