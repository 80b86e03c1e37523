import { type AttrValue, type HostTensor, type KernelV1, TsgeError, attr, createAttrReader } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { INT_CONV_PLAN } from './int-conv-plan.js';
import { hasWasmSimd } from './kernel-modules.js';
import { simdIntConvKernels } from './simd-int-conv.js';
import { bytes, counted, fallbacks, referenceOf, run, tensorOf } from './simd-int-test-support.fixture.js';
import { wasmMemory } from './simd-test-support.fixture.js';

const [, requantizedConv] = simdIntConvKernels(counted) as [KernelV1, KernelV1];

const cases: { name: string; x: number[]; w: number[]; attrs: Record<string, AttrValue> }[] = [
  {
    name: 'depthwise 3×3 on 14×14',
    x: [1, 160, 14, 14],
    w: [160, 1, 3, 3],
    attrs: { group: attr.int(160), pads: attr.ints([1, 1, 1, 1]) },
  },
  { name: 'pointwise by columns', x: [1, 32, 16, 16], w: [40, 32, 1, 1], attrs: {} },
  { name: 'pointwise on 7×7 by rows', x: [1, 64, 7, 7], w: [96, 64, 1, 1], attrs: {} },
  // rows on 2 or 3 threads, columns on 1: a plan made for 2 and run on 1 changes its axis
  { name: 'pointwise on 8×8', x: [1, 64, 8, 8], w: [96, 64, 1, 1], attrs: {} },
];

function inputs(x: number[], w: number[]): HostTensor[] {
  const m = w[0] as number;
  return [
    bytes('uint8', x, 3),
    bytes('uint8', w, 4),
    tensorOf('uint8', [], () => 131),
    tensorOf('uint8', [], () => 117),
    tensorOf('int32', [m], (i) => (i * 977) % 4000),
    tensorOf('float32', [], () => 0.0125 / Math.sqrt(w.slice(1).reduce((p, d) => p * d, 1))),
    tensorOf('uint8', [], () => 124),
  ];
}

function planOf(c: (typeof cases)[number], threads: number): number[] {
  const attrs = createAttrReader(new Map(Object.entries(c.attrs)));
  const inputsInfo = [
    { dims: c.x, type: 'uint8' as const },
    { dims: c.w, type: 'uint8' as const },
  ];
  const planned = requantizedConv.plan?.({ nodeName: 'node', opType: 'RequantizedConv', attrs, inputs: inputsInfo, threads });
  expect(planned?.map(([name]) => name)).toEqual([INT_CONV_PLAN]);
  const value = planned?.[0]?.[1];
  if (value?.kind !== 'ints') throw new Error('no plan');
  return [...value.value];
}

describe.skipIf(!hasWasmSimd())('integer convolution plans made at compile time', () => {
  for (const c of cases)
    it(`${c.name}: the recorded plan (for 3 threads; for 2 run on 3 and on 1) gives the reference's bytes`, () => {
      const ins = inputs(c.x, c.w);
      const expected = run(referenceOf('RequantizedConv'), ins, c.attrs);
      for (const [planThreads, threads] of [
        [3, 3],
        [2, 3],
        [2, undefined],
      ] as const) {
        const attrs = { ...c.attrs, [INT_CONV_PLAN]: attr.ints(planOf(c, planThreads)) };
        const before = fallbacks.count;
        const got = run(requantizedConv, ins, attrs, wasmMemory(false, 64), threads);
        expect(fallbacks.count, 'SIMD path taken').toBe(before);
        expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
      }
    });

  it('a recorded plan that does not fit its task is TSGE-E7106', () => {
    const c = cases[2] as (typeof cases)[number];
    const plan = planOf(c, 3);
    expect(plan[3], 'split by rows').toBe(0);
    const ranges = plan.slice(5);
    const bad = [
      [2, ...plan.slice(1)], // unknown version
      [plan[0], 1, ...plan.slice(2)], // depthwise for a GEMM
      [...plan.slice(0, 4), (plan[4] as number) - 1, ...ranges.slice(0, -2)], // rows left uncovered
      [...plan.slice(0, 5), ranges[0], (ranges[1] as number) + 1, ...ranges.slice(2)], // overlapping
      [...plan.slice(0, 5), 0, 2, 2, ...ranges.slice(1)], // a range starting inside a 4-row block
    ];
    for (const ints of bad) {
      let error: unknown;
      try {
        run(requantizedConv, inputs(c.x, c.w), { ...c.attrs, [INT_CONV_PLAN]: attr.ints(ints as number[]) }, wasmMemory(false, 64), 3);
      } catch (e) {
        error = e;
      }
      expect(error, `plan [${ints}]`).toBeInstanceOf(TsgeError);
      expect((error as TsgeError).code).toBe('TSGE-E7106');
    }
  });
});
