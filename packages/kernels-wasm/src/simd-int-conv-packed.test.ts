import { type AttrValue, type HostTensor, type KernelV1, attr, createTensor, readNumber } from '@tsge/metadef';
import { PACKED_WEIGHT, packIntWeights, packedWeightAttr, packedWeightShape } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { hasWasmSimd } from './kernel-modules.js';
import { simdIntConvKernels } from './simd-int-conv.js';
import { bytes, counted, expectCodedFailures, fallbacks, referenceOf, run, seeded, tensorOf } from './simd-int-test-support.fixture.js';
import { wasmMemory } from './simd-test-support.fixture.js';

const [, requantizedConv] = simdIntConvKernels(counted) as [KernelV1, KernelV1];

interface Case {
  name: string;
  x: number[];
  w: number[];
  attrs: Record<string, AttrValue>;
  wType?: 'uint8' | 'int8';
  perChannel?: boolean;
}

// convolutions the integer GEMM runs: rows in blocks of 4 and tails, odd K, groups, gathers, splits
const cases: Case[] = [
  { name: 'pointwise, per-tensor zero point, M % 4 = 3', x: [1, 16, 7, 9], w: [23, 16, 1, 1], attrs: {} },
  { name: 'pointwise odd K, int8 per channel, batch 2', x: [2, 13, 5, 5], w: [11, 13, 1, 1], attrs: {}, wType: 'int8', perChannel: true },
  {
    name: '3×3 stride 2 pad 1 (padded gather)',
    x: [1, 3, 17, 15],
    w: [8, 3, 3, 3],
    attrs: { strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) },
  },
  {
    name: 'grouped 3×3, 6 rows a group',
    x: [1, 8, 6, 7],
    w: [12, 4, 3, 3],
    attrs: { group: attr.int(2), pads: attr.ints([1, 0, 1, 2]) },
    perChannel: true,
  },
  { name: 'dilated (window gather)', x: [1, 4, 11, 10], w: [5, 4, 3, 3], attrs: { dilations: attr.ints([2, 2]) }, wType: 'int8' },
  { name: 'split: pointwise by columns', x: [1, 32, 16, 16], w: [40, 32, 1, 1], attrs: {}, wType: 'int8', perChannel: true },
  { name: 'split: pointwise on 7×7 by rows', x: [1, 64, 7, 7], w: [98, 64, 1, 1], attrs: {} },
  { name: 'one output position', x: [1, 70, 1, 1], w: [37, 70, 1, 1], attrs: {}, perChannel: true },
];

function inputsOf(c: Case, seed: number): (HostTensor | undefined)[] {
  const wType = c.wType ?? 'uint8';
  const channels = c.w[0] as number;
  const rnd = seeded(seed + 99);
  const x = bytes('uint8', c.x, seed);
  const w = bytes(wType, c.w, seed + 1);
  const xz = tensorOf('uint8', [], () => 128 + Math.floor(rnd() * 20));
  const wz = tensorOf(wType, c.perChannel ? [channels] : [], () =>
    wType === 'uint8' ? 100 + Math.floor(rnd() * 50) : Math.floor(rnd() * 5) - 2,
  );
  const bias = tensorOf('int32', [channels], () => Math.floor((rnd() - 0.5) * 40000));
  const depth = c.w.slice(1).reduce((p, d) => p * d, 1);
  const scale = tensorOf('float32', c.perChannel ? [channels] : [], () => ((0.5 + rnd()) * 0.0125) / Math.sqrt(depth));
  const yz = tensorOf('uint8', [], () => 120 + Math.floor(rnd() * 10));
  return [x, w, xz, wz, bias, scale, yz];
}

/** The node as the compiler's pack-int-weights pass leaves it: int16 w − wz packed, no w_zero_point. */
function packedForm(
  c: Case,
  inputs: readonly (HostTensor | undefined)[],
): { inputs: (HostTensor | undefined)[]; attrs: Record<string, AttrValue> } {
  const [x, w, xz, wz, ...rest] = inputs as HostTensor[];
  const ints = packedWeightAttr(w.dims);
  const shape = packedWeightShape(ints);
  if (typeof shape === 'string') throw new Error(shape);
  const group = c.attrs.group?.kind === 'int' ? c.attrs.group.value : 1;
  const centred = Array.from(
    { length: w.data.length },
    (_, i) => readNumber(w, i) - readNumber(wz, wz.data.length === 1 ? 0 : Math.floor(i / shape.k)),
  );
  const packed = createTensor('int16', [shape.dims[0], shape.k16], packIntWeights(centred, shape, group));
  return {
    inputs: [x, packed, xz, undefined, ...rest],
    attrs: { ...c.attrs, [PACKED_WEIGHT]: attr.ints(ints), kernel_shape: attr.ints(shape.dims.slice(2)) },
  };
}

describe('RequantizedConv with a packed weight', () => {
  for (const c of cases)
    it(`${c.name}: the reference unpacks it to the same bytes`, () => {
      const inputs = inputsOf(c, c.name.length * 3 + 1);
      const expected = run(referenceOf('RequantizedConv'), inputs, c.attrs);
      const p = packedForm(c, inputs);
      const got = run(referenceOf('RequantizedConv'), p.inputs, p.attrs);
      expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
      expect(new Set(Array.from(got.data as Uint8Array)).size).toBeGreaterThan(10);
    });

  it('a packed weight that does not fit its node is a coded error, on the reference and the SIMD kernel', () => {
    const c = cases[0] as Case;
    const p = packedForm(c, inputsOf(c, 11));
    const w = p.inputs[1] as HostTensor;
    const short = createTensor('int16', [w.dims[0] as number, (w.dims[1] as number) - 16]);
    const wrongRows = { ...p.attrs, [PACKED_WEIGHT]: attr.ints(packedWeightAttr([22, 16, 1, 1])) };
    const bad: [(HostTensor | undefined)[], Record<string, AttrValue>][] = [
      [[p.inputs[0], short, ...p.inputs.slice(2)], p.attrs],
      [p.inputs, wrongRows],
      [p.inputs, { ...p.attrs, [PACKED_WEIGHT]: attr.ints([9, 23, 16, 1, 1]) }],
    ];
    expectCodedFailures(referenceOf('RequantizedConv'), requantizedConv, bad);
  });
});

describe.skipIf(!hasWasmSimd())('the integer GEMM reads a packed weight in place', () => {
  for (const c of cases)
    for (const threads of [undefined, 3])
      it(`${c.name}${threads ? ', tiles over 3 threads' : ''}`, () => {
        const inputs = inputsOf(c, c.name.length * 3 + 1);
        const expected = run(referenceOf('RequantizedConv'), inputs, c.attrs);
        const p = packedForm(c, inputs);
        const before = fallbacks.count;
        const got = run(requantizedConv, p.inputs, p.attrs, wasmMemory(false, 64), threads);
        expect(fallbacks.count, 'SIMD path taken').toBe(before);
        expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
      });

  it('exact_product (QLinearConv arithmetic) with a packed weight', () => {
    const c = cases[3] as Case;
    const inputs = inputsOf(c, 5);
    const attrs = { ...c.attrs, exact_product: attr.int(1) };
    const expected = run(referenceOf('RequantizedConv'), inputs, attrs);
    const p = packedForm({ ...c, attrs }, inputs);
    const before = fallbacks.count;
    const got = run(requantizedConv, p.inputs, p.attrs, wasmMemory(false, 64), 3);
    expect(fallbacks.count, 'SIMD path taken').toBe(before);
    expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
  });
});
