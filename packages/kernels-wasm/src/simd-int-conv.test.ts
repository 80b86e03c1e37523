import { type AttrValue, type HostTensor, type KernelV1, TSGE_DOMAIN, attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { hasWasmSimd } from './kernel-modules.js';
import { intSplit } from './int-conv-plan.js';
import { simdIntConvKernels } from './simd-int-conv.js';
import { bytes, counted, fallbacks, referenceOf, run, seeded, tensorOf } from './simd-int-test-support.fixture.js';
import { wasmMemory } from './simd-test-support.fixture.js';

const [convInteger, requantizedConv] = simdIntConvKernels(counted);

interface Case {
  name: string;
  x: number[];
  w: number[];
  attrs: Record<string, AttrValue>;
  xType?: 'uint8' | 'int8';
  wType?: 'uint8' | 'int8';
  yType?: 'uint8' | 'int8';
  perChannel?: boolean;
  bias?: boolean;
  clip?: [number, number];
}

const cases: Case[] = [
  { name: 'pointwise uint8, per-tensor', x: [1, 16, 7, 9], w: [24, 16, 1, 1], attrs: {} },
  {
    name: 'pointwise odd K, M % 4, int8 weights per channel',
    x: [2, 13, 5, 5],
    w: [11, 13, 1, 1],
    attrs: {},
    wType: 'int8',
    perChannel: true,
  },
  {
    name: 'pointwise int8 everything',
    x: [1, 32, 3, 3],
    w: [10, 32, 1, 1],
    attrs: {},
    xType: 'int8',
    wType: 'int8',
    yType: 'int8',
    perChannel: true,
  },
  {
    name: '3×3 stride 2 pad 1 (first layer)',
    x: [1, 3, 17, 15],
    w: [8, 3, 3, 3],
    attrs: { strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) },
  },
  { name: 'grouped 3×3', x: [1, 8, 6, 7], w: [6, 4, 3, 3], attrs: { group: attr.int(2), pads: attr.ints([1, 0, 1, 2]) }, perChannel: true },
  { name: 'dilated', x: [1, 4, 11, 10], w: [5, 4, 3, 3], attrs: { dilations: attr.ints([2, 2]) }, wType: 'int8' },
  { name: 'pointwise on 7×7 (a last block of 1 column)', x: [1, 40, 7, 7], w: [36, 40, 1, 1], attrs: {}, wType: 'int8', perChannel: true },
  { name: 'pointwise on 14×14 (a last block of 4 columns)', x: [1, 24, 14, 14], w: [9, 24, 1, 1], attrs: {} },
  { name: 'fully connected as 1×1 on 1×1', x: [1, 70, 1, 1], w: [37, 70, 1, 1], attrs: {}, perChannel: true },
  {
    name: 'fully connected int8, per-tensor, K past a multiple of 16, batch 2',
    x: [2, 45, 1, 1],
    w: [12, 45, 1, 1],
    attrs: {},
    xType: 'int8',
    wType: 'int8',
    yType: 'int8',
  },
  { name: 'fully connected, uint8 weights per channel, M % 4 of 3', x: [1, 33, 1, 1], w: [23, 33, 1, 1], attrs: {}, perChannel: true },
  {
    name: 'fully connected, int8 weights per channel into uint8, clipped',
    x: [1, 96, 1, 1],
    w: [24, 96, 1, 1],
    attrs: {},
    wType: 'int8',
    perChannel: true,
    clip: [10, 240],
  },
  {
    name: 'depthwise 3×3 pad 1',
    x: [2, 6, 9, 13],
    w: [6, 1, 3, 3],
    attrs: { group: attr.int(6), pads: attr.ints([1, 1, 1, 1]) },
    perChannel: true,
  },
  {
    name: 'depthwise 3×3 stride 2 (TFLite SAME)',
    x: [1, 5, 16, 17],
    w: [5, 1, 3, 3],
    attrs: { group: attr.int(5), strides: attr.ints([2, 2]), pads: attr.ints([0, 0, 1, 1]) },
  },
  {
    name: 'depthwise 5×5 int8, stride 2 dilation 1×2',
    x: [1, 3, 12, 21],
    w: [3, 1, 5, 5],
    attrs: { group: attr.int(3), strides: attr.ints([2, 2]), dilations: attr.ints([1, 2]), pads: attr.ints([2, 3, 1, 0]) },
    xType: 'int8',
    wType: 'int8',
    yType: 'int8',
  },
  {
    name: 'depthwise 3×3 dilation 2, 4×2 filter',
    x: [1, 4, 13, 11],
    w: [4, 1, 4, 2],
    attrs: { group: attr.int(4), dilations: attr.ints([2, 3]), pads: attr.ints([3, 1, 2, 2]) },
    perChannel: true,
  },
  {
    name: 'depthwise 3×3 pad 1 on 7×7 (each row one partial vector)',
    x: [1, 4, 7, 7],
    w: [4, 1, 3, 3],
    attrs: { group: attr.int(4), pads: attr.ints([1, 1, 1, 1]) },
  },
  {
    name: 'depthwise 3×3 stride 2 on 14×14 int8 (each row one partial step)',
    x: [1, 3, 14, 14],
    w: [3, 1, 3, 3],
    attrs: { group: attr.int(3), strides: attr.ints([2, 2]), pads: attr.ints([0, 0, 1, 1]) },
    xType: 'int8',
    perChannel: true,
  },
  {
    name: 'depthwise 3×3 stride 3',
    x: [1, 2, 10, 11],
    w: [2, 1, 3, 3],
    attrs: { group: attr.int(2), strides: attr.ints([3, 3]), pads: attr.ints([1, 1, 1, 1]) },
  },
  {
    name: '3×3 stride 2 int8, odd K, batch 2, columns split (padded gather)',
    x: [2, 5, 29, 27],
    w: [6, 5, 3, 3],
    attrs: { strides: attr.ints([2, 2]), pads: attr.ints([1, 0, 0, 1]) },
    xType: 'int8',
    wType: 'int8',
    yType: 'int8',
    perChannel: true,
  },
  {
    name: '2×3 stride 1×2 dilation 2×1 (padded gather)',
    x: [1, 2, 12, 19],
    w: [5, 2, 2, 3],
    attrs: { strides: attr.ints([1, 2]), dilations: attr.ints([2, 1]), pads: attr.ints([2, 1, 0, 2]) },
  },
  { name: 'clipped (Relu6 range), no bias', x: [1, 9, 6, 6], w: [7, 9, 1, 1], attrs: {}, bias: false, clip: [3, 200] },
  // big enough to split into tiles over 3 threads (see 'the larger cases split' below)
  {
    name: 'split: 3×3 stride 2 padded gather, tiles ending inside output rows',
    x: [1, 4, 64, 60],
    w: [8, 4, 3, 3],
    attrs: { strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) },
  },
  { name: 'split: pointwise by columns', x: [1, 32, 16, 16], w: [40, 32, 1, 1], attrs: {}, wType: 'int8', perChannel: true },
  { name: 'split: pointwise on 7×7 by rows', x: [1, 64, 7, 7], w: [96, 64, 1, 1], attrs: {} },
  { name: 'split: fully connected by rows', x: [1, 300, 1, 1], w: [1000, 300, 1, 1], attrs: {}, perChannel: true },
  {
    name: 'split: depthwise 3×3 on 14×14',
    x: [1, 160, 14, 14],
    w: [160, 1, 3, 3],
    attrs: { group: attr.int(160), pads: attr.ints([1, 1, 1, 1]) },
  },
];

function inputsOf(c: Case, seed: number) {
  const xType = c.xType ?? 'uint8';
  const wType = c.wType ?? 'uint8';
  const yType = c.yType ?? 'uint8';
  const channels = c.w[0] as number;
  const rnd = seeded(seed + 99);
  const x = bytes(xType, c.x, seed);
  const w = bytes(wType, c.w, seed + 1);
  const xz = tensorOf(xType, [], () => (xType === 'uint8' ? 128 + Math.floor(rnd() * 20) : Math.floor(rnd() * 9) - 4));
  const wz = tensorOf(wType, c.perChannel ? [channels] : [], () =>
    wType === 'uint8' ? 100 + Math.floor(rnd() * 50) : c.perChannel ? 0 : Math.floor(rnd() * 5) - 2,
  );
  const bias = c.bias === false ? undefined : tensorOf('int32', [1, channels, 1, 1], () => Math.floor((rnd() - 0.5) * 40000));
  // scales that put the output across its range, some per channel
  const depth = c.w.slice(1).reduce((p, d) => p * d, 1);
  const scale = tensorOf('float32', c.perChannel ? [1, channels, 1, 1] : [], () => ((0.5 + rnd()) * 0.0125) / Math.sqrt(depth));
  const yz = tensorOf(yType, [], () => (yType === 'uint8' ? 120 + Math.floor(rnd() * 10) : Math.floor(rnd() * 9) - 4));
  const clip = c.clip ? c.clip.map((v) => tensorOf(yType, [], () => v)) : [undefined, undefined];
  return { conv: [x, w, xz, wz], requant: [x, w, xz, wz, bias, scale, yz, ...clip] };
}

describe.skipIf(!hasWasmSimd())('integer convolution SIMD kernels equal the reference', () => {
  for (const c of cases) {
    for (const threads of [undefined, 3]) {
      it(`${c.name}${threads ? ', tiles over 3 threads' : ''}`, () => {
        const memory = wasmMemory(false, 64);
        const { conv, requant } = inputsOf(c, c.name.length * 7 + 3);
        const expectedInt = run(referenceOf('ConvInteger'), conv, c.attrs);
        const before = fallbacks.count;
        const gotInt = run(convInteger as KernelV1, conv, c.attrs, memory, threads);
        expect(gotInt.dims).toEqual(expectedInt.dims);
        expect(Array.from(gotInt.data as Int32Array)).toEqual(Array.from(expectedInt.data as Int32Array));
        const expected = run(referenceOf('RequantizedConv'), requant, c.attrs);
        const got = run(requantizedConv as KernelV1, requant, c.attrs, memory, threads);
        expect(fallbacks.count, 'SIMD path taken').toBe(before);
        expect(got.type).toBe(expected.type);
        expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
        // the outputs are not all saturated: the test sees the requantization
        const values = new Set(Array.from(got.data as Uint8Array));
        expect(values.size).toBeGreaterThan(10);
      });
    }
  }

  // QLinearConv with constant scales runs as RequantizedConv with exact_product = 1 and the scale
  // fround(x_scale·w_scale / y_scale): the SIMD kernel must give the QLinearConv reference's bytes
  for (const c of cases.filter((k) => !k.clip)) {
    it(`${c.name}: exact_product equals QLinearConv`, () => {
      const { requant } = inputsOf(c, c.name.length * 5 + 1);
      const [x, w, xz, wz, bias] = requant as HostTensor[];
      const channels = c.w[0] as number;
      const rnd = seeded(c.name.length);
      const xs = tensorOf('float32', [], () => 0.0173);
      const ws = tensorOf('float32', c.perChannel ? [channels] : [], () => 0.004 + rnd() * 0.01);
      // y_scale puts the largest accumulator about 100 quanta from the zero point
      const acc = run(referenceOf('ConvInteger'), [x, w, xz, wz], c.attrs).data as Int32Array;
      const largest = acc.reduce((m, v) => Math.max(m, Math.abs(v)), 1);
      const ys = tensorOf('float32', [], () => (0.0173 * 0.009 * largest) / 100);
      const yType = c.yType ?? 'uint8';
      const yz = tensorOf(yType, [], () => (yType === 'uint8' ? 125 : -2));
      const b1 = bias ? tensorOf('int32', [channels], (i) => bias.data[i] as number) : undefined;
      const attrs = c.attrs;
      const qlinear = run(referenceOf('QLinearConv'), [x, xs, xz, w, ws, wz, ys, yz, b1], attrs);
      const scale = tensorOf('float32', c.perChannel ? [channels] : [], (i) =>
        Math.fround(((xs.data[0] as number) * (ws.data[i] as number)) / (ys.data[0] as number)),
      );
      const exact = { ...attrs, exact_product: attr.int(1) };
      const inputs = [x, w, xz, wz, b1, scale, yz];
      expect(Array.from(run(referenceOf('RequantizedConv'), inputs, exact).data as Uint8Array)).toEqual(
        Array.from(qlinear.data as Uint8Array),
      );
      const before = fallbacks.count;
      const got = run(requantizedConv as KernelV1, inputs, exact, wasmMemory(false, 64), 3);
      expect(fallbacks.count, 'SIMD path taken').toBe(before);
      expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(qlinear.data as Uint8Array));
      expect(new Set(Array.from(got.data as Uint8Array)).size).toBeGreaterThan(10);
    });
  }

  it('falls back to the reference outside device memory', () => {
    const c = cases[0] as Case;
    const { requant } = inputsOf(c, 5);
    const expected = run(referenceOf('RequantizedConv'), requant, c.attrs);
    const before = fallbacks.count;
    expect(Array.from(run(requantizedConv as KernelV1, requant, c.attrs).data as Uint8Array)).toEqual(
      Array.from(expected.data as Uint8Array),
    );
    expect(fallbacks.count).toBe(before + 1);
    expect(requantizedConv?.domain).toBe(TSGE_DOMAIN);
  });
});

// Depthwise strides 1 and 2 build their pair rows straight from the bytes, padding rows read from a
// row of zx bytes: zero points at the type's edges (padding then reads the extreme byte), widths
// around the 8- and 16-column steps, left pads 0 to 3
describe.skipIf(!hasWasmSimd())('integer convolutions with edge zero points equal the reference', () => {
  const geometries: { x: number[]; k: number[]; s: number; pads: number[]; full?: number }[] = [
    { x: [1, 3, 5, 7], k: [3, 3], s: 1, pads: [1, 1, 1, 1] },
    { x: [1, 2, 9, 16], k: [3, 3], s: 1, pads: [0, 0, 2, 2] },
    { x: [2, 3, 6, 17], k: [3, 3], s: 2, pads: [1, 3, 1, 0] },
    { x: [1, 4, 11, 32], k: [3, 3], s: 2, pads: [0, 0, 1, 1] },
    { x: [1, 2, 8, 33], k: [5, 5], s: 2, pads: [2, 2, 2, 2] },
    { x: [1, 2, 7, 9], k: [2, 4], s: 1, pads: [0, 2, 1, 1] },
    // full convolutions (group 1): the gemm's padded gather
    { x: [1, 3, 15, 21], k: [3, 3], s: 2, pads: [0, 0, 1, 1], full: 4 },
    { x: [1, 2, 6, 11], k: [3, 3], s: 1, pads: [1, 1, 1, 1], full: 5 },
  ];
  const types = [
    { t: 'uint8', zeros: [0, 255] },
    { t: 'int8', zeros: [-128, 127] },
  ] as const;
  for (const g of geometries)
    for (const { t, zeros } of types)
      for (const zx of zeros)
        it(`${g.full ? 'full' : 'depthwise'} ${g.k.join('×')} stride ${g.s} on ${g.x.join('×')}, ${t} zero point ${zx}`, () => {
          const C = g.x[1] as number;
          const rnd = seeded(C * 31 + zx + (g.x[3] as number));
          const x = bytes(t, g.x, C + 2);
          const M = g.full ?? C;
          const w = bytes(t, [M, g.full ? C : 1, ...g.k], C + 3);
          const xz = tensorOf(t, [], () => zx);
          const wz = tensorOf(t, [M], (i) => (i === 0 ? zeros[1] : i === 1 ? zeros[0] : Math.floor(rnd() * 50)));
          const attrs = { group: attr.int(g.full ? 1 : C), strides: attr.ints([g.s, g.s]), pads: attr.ints(g.pads) };
          const conv = [x, w, xz, wz];
          const expectedInt = run(referenceOf('ConvInteger'), conv, attrs);
          const bias = tensorOf('int32', [M], () => Math.floor((rnd() - 0.5) * 200000));
          const acc = Array.from(expectedInt.data as Int32Array).reduce((m, v) => Math.max(m, Math.abs(v)), 1);
          const scale = tensorOf('float32', [M], () => (0.5 + rnd()) * (100 / acc));
          const yz = tensorOf(t, [], () => (t === 'uint8' ? 100 : -20));
          const requant = [x, w, xz, wz, bias, scale, yz];
          const expected = run(referenceOf('RequantizedConv'), requant, attrs);
          for (const threads of [undefined, 2]) {
            const before = fallbacks.count;
            const memory = wasmMemory(false, 64);
            expect(Array.from(run(convInteger as KernelV1, conv, attrs, memory, threads).data as Int32Array)).toEqual(
              Array.from(expectedInt.data as Int32Array),
            );
            const got = run(requantizedConv as KernelV1, requant, attrs, memory, threads);
            expect(fallbacks.count, 'SIMD path taken').toBe(before);
            expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
          }
          expect(new Set(Array.from(expected.data as Uint8Array)).size).toBeGreaterThan(10);
        });
});

describe.skipIf(!hasWasmSimd())('MatMulInteger SIMD kernel equals the reference', () => {
  const matmulInteger = simdIntConvKernels(counted)[2] as KernelV1;
  for (const c of [
    { name: 'uint8 [37, 70]·[70, 29], per-row A zero points', a: [37, 70], b: [70, 29], aType: 'uint8', bType: 'uint8', perRow: true },
    { name: 'int8·uint8, odd K, batched A over a 2-D B', a: [3, 5, 13], b: [13, 70], aType: 'int8', bType: 'uint8', perRow: false },
    { name: 'batched both, int8', a: [2, 9, 16], b: [2, 16, 11], aType: 'int8', bType: 'int8', perRow: false },
    { name: 'one column, uint8·int8, per-row A zero points', a: [30, 50], b: [50, 1], aType: 'uint8', bType: 'int8', perRow: true },
  ] as const) {
    for (const threads of [undefined, 3]) {
      it(`${c.name}${threads ? ', tiles over 3 threads' : ''}`, () => {
        const rnd = seeded(c.a.length * 11 + c.b[1]);
        const a = bytes(c.aType, c.a, 3);
        const b = bytes(c.bType, c.b, 4);
        const M = c.a[c.a.length - 2] as number;
        const az = tensorOf(c.aType, c.perRow ? [M] : [], () => Math.floor(rnd() * 100) - (c.aType === 'int8' ? 50 : 0));
        const bz = tensorOf(c.bType, [], () => Math.floor(rnd() * 100) - (c.bType === 'int8' ? 50 : 0));
        const expected = run(referenceOf('MatMulInteger'), [a, b, az, bz], {});
        const before = fallbacks.count;
        const got = run(matmulInteger, [a, b, az, bz], {}, wasmMemory(false, 64), threads);
        expect(fallbacks.count, 'SIMD path taken').toBe(before);
        expect(got.dims).toEqual(expected.dims);
        expect(Array.from(got.data as Int32Array)).toEqual(Array.from(expected.data as Int32Array));
      });
    }
  }
});

describe.skipIf(!hasWasmSimd())('QLinearMatMul SIMD kernel equals the reference', () => {
  const qlinearMatMul = simdIntConvKernels(counted)[3] as KernelV1;
  const f32 = (v: number): HostTensor => ({ type: 'float32', dims: [], data: Float32Array.of(v) });
  for (const c of [
    {
      name: 'uint8 [37, 70]·[70, 29], per-row A zero points',
      a: [37, 70],
      b: [70, 29],
      aType: 'uint8',
      bType: 'uint8',
      yType: 'uint8',
      perRow: true,
    },
    {
      name: 'int8·uint8 → int8, odd K, batched A over a 2-D B',
      a: [3, 5, 13],
      b: [13, 70],
      aType: 'int8',
      bType: 'uint8',
      yType: 'int8',
      perRow: false,
    },
    {
      name: 'batched both, int8, K of 1000',
      a: [2, 9, 1000],
      b: [2, 1000, 11],
      aType: 'int8',
      bType: 'int8',
      yType: 'uint8',
      perRow: false,
    },
    {
      name: 'one column [64, 300]·[300, 1]',
      a: [64, 300],
      b: [300, 1],
      aType: 'int8',
      bType: 'uint8',
      yType: 'uint8',
      perRow: false,
    },
    {
      name: 'a wide product [196, 256]·[256, 130]',
      a: [196, 256],
      b: [256, 130],
      aType: 'uint8',
      bType: 'int8',
      yType: 'int8',
      perRow: false,
    },
  ] as const) {
    for (const threads of [undefined, 3]) {
      it(`${c.name}${threads ? ', tiles over 3 threads' : ''}`, () => {
        const rnd = seeded(c.a.length * 17 + c.b[1]);
        const a = bytes(c.aType, c.a, 5);
        const b = bytes(c.bType, c.b, 6);
        const M = c.a[c.a.length - 2] as number;
        const zero = (type: 'uint8' | 'int8', dims: number[]) =>
          tensorOf(type, dims, () => (type === 'int8' ? Math.floor(rnd() * 256) - 128 : Math.floor(rnd() * 256)));
        // zero points at the extremes (the per-row case) and in between: extremes everywhere push
        // every sum to one side and every output into saturation
        const az = c.perRow ? zero(c.aType, [M]) : zero(c.aType, []);
        const bz = c.perRow ? tensorOf(c.bType, [], () => ((c.bType as string) === 'int8' ? 127 : 0)) : zero(c.bType, []);
        const yz = tensorOf(c.yType, [], () => (c.yType === 'int8' ? 5 : 120));
        // a multiplier that maps the median sum to the edge of the output range: about half the
        // outputs saturate, the rest round
        const sums = Array.from(run(referenceOf('MatMulInteger'), [a, b, az, bz], {}).data as Int32Array).sort((p, q) => p - q);
        const median = sums[sums.length >> 1] || 1;
        const edge = median > 0 ? (c.yType === 'int8' ? 127 - 5 : 255 - 120) : c.yType === 'int8' ? -128 - 5 : -120;
        const ys = (0.02 * 0.03 * median) / edge;
        const inputs = [a, f32(0.02), az, b, f32(0.03), bz, f32(ys), yz];
        const expected = run(referenceOf('QLinearMatMul'), inputs, {});
        const before = fallbacks.count;
        const got = run(qlinearMatMul, inputs, {}, wasmMemory(false, 64), threads);
        expect(fallbacks.count, 'SIMD path taken').toBe(before);
        expect(got.type).toBe(c.yType);
        expect(got.dims).toEqual(expected.dims);
        const values = Array.from(got.data as Uint8Array);
        expect(values).toEqual(Array.from(expected.data as Uint8Array));
        const [lo, hi] = c.yType === 'int8' ? [-128, 127] : [0, 255];
        expect(values.some((v) => v === lo || v === hi) && values.some((v) => v !== lo && v !== hi)).toBe(true);
      });
    }
  }

  it('leaves per-column B scales to the reference', () => {
    const a = bytes('uint8', [4, 8], 1);
    const b = bytes('uint8', [8, 3], 2);
    const u8 = (v: number) => tensorOf('uint8', [], () => v);
    const bScale: HostTensor = { type: 'float32', dims: [3], data: Float32Array.of(0.1, 0.2, 0.3) };
    const inputs = [a, f32(0.05), u8(3), b, bScale, u8(7), f32(0.5), u8(128)];
    const before = fallbacks.count;
    const got = run(qlinearMatMul, inputs, {}, wasmMemory(false, 64));
    expect(fallbacks.count).toBe(before + 1);
    expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(run(referenceOf('QLinearMatMul'), inputs, {}).data as Uint8Array));
  });
});

describe('intSplit', () => {
  it('the larger cases split over 3 threads', () => {
    // (total, granule, work per item) as simd-int-conv.ts splits them
    for (const [total, granule, work] of [
      [32 * 30, 8, 8 * 36],
      [256, 8, 40 * 32],
      [96, 4, 49 * 64],
      [1000, 4, 300],
      [160, 1, 196 * 9],
    ] as const)
      expect(intSplit(total, 3, granule, work).length).toBeGreaterThan(1);
  });

  it('covers the range in granule multiples, as many tiles as a multiple of the threads, of even sizes', () => {
    for (const [total, threads, granule, work] of [
      [784, 2, 8, 4608],
      [196, 2, 8, 36864],
      [160, 2, 4, 28224],
      [1001, 2, 4, 1280],
      [960, 2, 1, 441],
      [49, 3, 8, 1 << 20],
      [12544, 4, 8, 1536],
    ] as const) {
      const ranges = intSplit(total, threads, granule, work);
      expect(ranges[0]?.[0]).toBe(0);
      expect(ranges[ranges.length - 1]?.[1]).toBe(total);
      for (let i = 0; i < ranges.length; i++) {
        const [a, b] = ranges[i] as [number, number];
        expect(b).toBeGreaterThan(a);
        expect(a % granule).toBe(0);
        if (i > 0) expect(a).toBe((ranges[i - 1] as [number, number])[1]);
      }
      const units = Math.ceil(total / granule);
      if (units >= threads) expect(ranges.length % threads).toBe(0);
      const sizes = ranges.map(([a, b]) => b - a);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(2 * granule);
    }
    // small work stays one tile; one thread, one tile
    expect(intSplit(64, 2, 4, 100)).toEqual([[0, 64]]);
    expect(intSplit(12544, 1, 8, 1536)).toEqual([[0, 12544]]);
  });
});
