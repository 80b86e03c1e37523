import { type AttrValue, type HostTensor, type KernelV1, attr, createAttrReader, createTensor, readNumber } from '@tsge/metadef';
import { PACKED_WEIGHT, intPanelColumns, packIntPanels, packedPanelsAttr, packedPanelsShape } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { INT_MATMUL_PLAN, chooseIntMatMul, planIntMatMulNode } from './int-matmul-plan.js';
import { hasWasmSimd } from './kernel-modules.js';
import { describeKernelPlan } from './plan-descriptions.js';
import { simdIntConvKernels } from './simd-int-conv.js';
import { bytes, counted, expectCodedFailures, fallbacks, referenceOf, run, seeded, tensorOf } from './simd-int-test-support.fixture.js';
import { wasmMemory } from './simd-test-support.fixture.js';

const packedKernel = simdIntConvKernels(counted).find((k) => k.opType === 'PackedMatMulInteger') as KernelV1;

interface Case {
  name: string;
  a: number[];
  n: number;
  type: 'uint8' | 'int8';
  /** One a_zero_point per row of A. */
  perRow?: boolean;
  /** One b_zero_point per column of B. */
  perColumn?: boolean;
  /** Panel columns (the compiler's choice when absent). */
  np?: number;
  requantize?: boolean;
}

// row blocks of 4 and tails, odd K, batches, panels the tiles cross, per-row / per-column zero points
const cases: Case[] = [
  { name: 'int32 sums, M % 4 = 3, odd K', a: [23, 45], n: 70, type: 'uint8' },
  { name: 'int32 sums, int8, per-column b zero point, batch 3', a: [3, 17, 45], n: 70, type: 'int8', perColumn: true },
  { name: 'int32 sums, per-row a zero point over batches', a: [2, 9, 33], n: 41, type: 'uint8', perRow: true },
  { name: 'int32 sums, 16-column panels the tiles cross', a: [64, 40], n: 100, type: 'int8', np: 16 },
  { name: 'requantized uint8, 24-column panels', a: [64, 200], n: 96, type: 'uint8', np: 24, requantize: true },
  { name: 'requantized int8, batched, per-column b zero point', a: [3, 17, 45], n: 70, type: 'int8', perColumn: true, requantize: true },
  { name: 'requantized, two rows split by columns across panels', a: [2, 1024], n: 1000, type: 'uint8', requantize: true },
];

/** The inputs of MatMulInteger or QLinearMatMul and of the PackedMatMulInteger the compiler makes of them. */
function inputsOf(c: Case, seed: number) {
  const rnd = seeded(seed + 7);
  const [m, k] = c.a.slice(-2) as [number, number];
  const a = bytes(c.type, c.a, seed);
  const b = bytes(c.type, [k, c.n], seed + 1);
  const zero = () => (c.type === 'uint8' ? 110 + Math.floor(rnd() * 30) : Math.floor(rnd() * 9) - 4);
  const az = tensorOf(c.type, c.perRow ? [m] : [], zero);
  const bz = tensorOf(c.type, c.perColumn ? [c.n] : [], zero);
  const f32 = (v: number) => tensorOf('float32', [], () => v);
  const scales = [f32(0.02), f32(0.015), f32((0.02 * 0.015 * Math.sqrt(k) * 75 * 75) / 90)];
  const yz = tensorOf(c.type, [], () => (c.type === 'uint8' ? 125 : 4));
  const ints = packedPanelsAttr(k, c.n, c.np ?? intPanelColumns(k, c.n));
  const shape = packedPanelsShape(ints);
  if (typeof shape === 'string') throw new Error(shape);
  const centred = Array.from({ length: k * c.n }, (_, i) => readNumber(b, i) - readNumber(bz, bz.data.length === 1 ? 0 : i % c.n));
  const panels = createTensor('int16', [shape.k2, shape.n8], packIntPanels(centred, shape));
  const attrs: Record<string, AttrValue> = { [PACKED_WEIGHT]: attr.ints(ints) };
  return c.requantize
    ? {
        op: 'QLinearMatMul',
        original: [a, scales[0], az, b, scales[1], bz, scales[2], yz],
        packed: [a, panels, az, ...scales, yz],
        attrs,
      }
    : { op: 'MatMulInteger', original: [a, b, az, bz], packed: [a, panels, az], attrs };
}

const values = (t: HostTensor): number[] => Array.from(t.data as Int32Array);

describe('PackedMatMulInteger (a constant B the compiler packed)', () => {
  for (const c of cases)
    it(`${c.name}: the reference unpacks it to MatMulInteger / QLinearMatMul's values`, () => {
      const p = inputsOf(c, c.name.length);
      const expected = run(referenceOf(p.op), p.original, {});
      const got = run(referenceOf('PackedMatMulInteger'), p.packed, p.attrs);
      expect(got.dims).toEqual(expected.dims);
      expect(got.type).toBe(expected.type);
      expect(values(got)).toEqual(values(expected));
      expect(new Set(values(got)).size).toBeGreaterThan(10);
    });

  it('a packed B that does not fit its node is a coded error, on the reference and the SIMD kernel', () => {
    const p = inputsOf(cases[0] as Case, 3);
    const panels = p.packed[1] as HostTensor;
    const short = createTensor('int16', [panels.dims[0] as number, (panels.dims[1] as number) - 8]);
    const bad: [(HostTensor | undefined)[], Record<string, AttrValue>][] = [
      [[p.packed[0], short, p.packed[2]], p.attrs],
      [p.packed, { [PACKED_WEIGHT]: attr.ints(packedPanelsAttr(45, 78, 72)) }],
      [p.packed, { [PACKED_WEIGHT]: attr.ints([2, 45, 70, 12]) }],
      [p.packed, { [PACKED_WEIGHT]: attr.ints([1, 23, 45, 1, 1]) }],
    ];
    expectCodedFailures(referenceOf('PackedMatMulInteger'), packedKernel, bad);
  });
});

describe.skipIf(!hasWasmSimd())('the integer GEMM reads the packed panels in place', () => {
  for (const c of cases)
    for (const threads of [undefined, 3])
      it(`${c.name}${threads ? ', tiles over 3 threads' : ''}`, () => {
        const p = inputsOf(c, c.name.length);
        const expected = run(referenceOf(p.op), p.original, {});
        const before = fallbacks.count;
        const got = run(packedKernel, p.packed, p.attrs, wasmMemory(false, 64), threads);
        expect(fallbacks.count, 'SIMD path taken').toBe(before);
        expect(values(got)).toEqual(values(expected));
      });

  it('runs the recorded plan, and refuses one that does not cover the product (TSGE-E7106)', () => {
    const c = cases[3] as Case;
    const p = inputsOf(c, 5);
    const expected = run(referenceOf(p.op), p.original, {});
    const inputs = p.packed.map((t) => (t ? { dims: t.dims, type: t.type } : undefined));
    const plan = planIntMatMulNode({
      nodeName: 'node',
      opType: 'PackedMatMulInteger',
      attrs: createAttrReader(new Map(Object.entries(p.attrs))),
      inputs,
      threads: 3,
    });
    const recorded = plan?.[0]?.[1];
    if (recorded?.kind !== 'ints') throw new Error('no plan');
    const ints = [...recorded.value];
    expect(ints.slice(0, 4)).toEqual([1, 1, 3, chooseIntMatMul(64, 100, 40, 3).tiles.length]);
    expect(describeKernelPlan(INT_MATMUL_PLAN, ints)).toMatch(/^integer matmul gemm, \d+ tiles for 3 threads$/);
    const got = run(packedKernel, p.packed, { ...p.attrs, [INT_MATMUL_PLAN]: attr.ints(ints) }, wasmMemory(false, 64), 3);
    expect(values(got)).toEqual(values(expected));
    // one tile dropped; a tile starting inside a block of 8 columns
    const dropped = [1, 1, 3, 1, 0, 64, 0, 48];
    const inside = [1, 1, 3, 2, 0, 64, 0, 44, 0, 64, 44, 100];
    for (const bad of [dropped, inside])
      expect(() => run(packedKernel, p.packed, { ...p.attrs, [INT_MATMUL_PLAN]: attr.ints(bad) }, wasmMemory(false, 64), 3)).toThrow(
        expect.objectContaining({ code: 'TSGE-E7106' }),
      );
  });
});
