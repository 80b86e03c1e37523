import { type KernelDescription, KOp, KernelDtype, KernelKind, encodeKernelDescription, kernelElements } from '@tsge/metadef';
import { interpretDescription } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { codeKey, compiledModuleCount, emittable, generatedElementwiseTile } from './generated-elementwise.js';
import { random, wasmMemory } from './simd-test-support.fixture.js';

const SIMD_OPS = [
  KOp.neg,
  KOp.abs,
  KOp.relu,
  KOp.reciprocal,
  KOp.floor,
  KOp.ceil,
  KOp.sqrt,
  KOp.copy,
  KOp.sigmoid,
  KOp.add,
  KOp.sub,
  KOp.mul,
  KOp.div,
  KOp.max,
  KOp.min,
  KOp.leaky,
  KOp.clampLo,
  KOp.clampHi,
];

/** A random description over `shape` with inputs contiguous or broadcast along each dim. */
function randomDescription(seed: number, shape: number[], ops: readonly number[]): KernelDescription {
  const rnd = random(seed);
  const pick = (n: number) => Math.floor(Math.abs(rnd() * 1000)) % n;
  const inputCount = 1 + pick(3);
  const inputs = Array.from({ length: inputCount }, () => {
    // broadcast some dims: stride 0 there, contiguous over the others
    const kept = shape.map(() => pick(3) !== 0);
    const strides = new Array<number>(shape.length).fill(0);
    let step = 1;
    for (let i = shape.length - 1; i >= 0; i--) {
      if (!kept[i]) continue;
      strides[i] = step;
      step *= shape[i] as number;
    }
    return { size: step, strides };
  });
  const constants = [0.25, -1.5];
  const first = inputCount + constants.length;
  const instructions = Array.from({ length: 1 + pick(8) }, (_, i) => {
    const op = ops[pick(ops.length)] as KernelDescription['instructions'][number]['op'];
    const a = pick(first + i);
    return { op, a, b: op >= 32 ? pick(first + i) : 0 };
  });
  return {
    kind: KernelKind.elementwise,
    dtype: KernelDtype.float32,
    shape,
    inputs,
    constants,
    instructions,
    output: first + instructions.length - 1,
    vectorWidth: 4,
  };
}

function runTile(d: KernelDescription, shared: boolean, split: number): { simd: Float32Array; interpreted: Float32Array } {
  const memory = wasmMemory(shared, 16);
  const f32 = new Float32Array(memory.buffer);
  const rnd = random(d.instructions.length * 31 + d.inputs.length);
  const addresses: number[] = [];
  let at = 64;
  const hostInputs = d.inputs.map((x) => {
    const values = Float32Array.from({ length: x.size }, () => rnd());
    f32.set(values, at / 4);
    addresses.push(at);
    at += Math.ceil((x.size * 4) / 64) * 64;
    return values;
  });
  addresses.push(at);
  const n = kernelElements(d);
  const rows = n / (d.shape[d.shape.length - 1] as number);
  const words = Array.from(encodeKernelDescription(d));
  // rows in `split` tiles, as the kernel hands them to workers
  const size = Math.ceil(rows / split);
  for (let r0 = 0; r0 < rows; r0 += size)
    generatedElementwiseTile.run(memory, [r0, Math.min(rows, r0 + size), addresses.length, ...addresses, ...words]);
  const simd = f32.slice(at / 4, at / 4 + n);
  const interpreted = new Float32Array(n);
  interpretDescription(d, hostInputs, interpreted);
  return { simd, interpreted };
}

function expectClose(actual: Float32Array, expected: Float32Array): void {
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i] as number;
    const a = actual[i] as number;
    if (Number.isNaN(e)) expect(a, `element ${i}`).toBeNaN();
    else if (!Number.isFinite(e)) expect(a, `element ${i}`).toBe(e);
    else expect(Math.abs(a - e), `element ${i}: ${a} vs ${e}`).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(e)));
  }
}

describe('generated elementwise kernels (emitted WebAssembly SIMD)', () => {
  it.each(Array.from({ length: 30 }, (_, i) => i + 1))('random description %i: SIMD matches the interpreter', (seed) => {
    const rnd = random(seed * 13);
    const rank = 1 + (Math.floor(Math.abs(rnd() * 100)) % 4);
    // row lengths around the vector width: tails of 0..3 lanes
    const shape = Array.from({ length: rank }, () => 1 + (Math.floor(Math.abs(rnd() * 100)) % 11));
    const d = randomDescription(seed, shape, SIMD_OPS);
    expect(emittable(d)).toBe(true);
    for (const shared of [false, true]) {
      const { simd, interpreted } = runTile(d, shared, 1 + (seed % 3));
      expectClose(simd, interpreted);
    }
  });

  it('many short rows across several outer dims, split mid-run, match hand-computed values', () => {
    // y = sqrt(x) − c over [2, 5, 3]: x contiguous, c a 3-vector broadcast over the two outer dims
    const d: KernelDescription = {
      kind: KernelKind.elementwise,
      dtype: KernelDtype.float32,
      shape: [2, 5, 3],
      inputs: [
        { size: 30, strides: [15, 3, 1] },
        { size: 3, strides: [0, 0, 1] },
      ],
      constants: [],
      instructions: [
        { op: KOp.sqrt, a: 0, b: 0 },
        { op: KOp.sub, a: 2, b: 1 },
      ],
      output: 3,
      vectorWidth: 4,
    };
    const memory = wasmMemory(false, 4);
    const f32 = new Float32Array(memory.buffer);
    f32.set(
      Array.from({ length: 30 }, (_, i) => i * i),
      16,
    );
    f32.set([1, 2, 4], 64);
    const addresses = [64, 256, 512];
    const words = Array.from(encodeKernelDescription(d));
    // tiles of 4, 4 and 2 rows: the first ends inside the first run of 5 rows, the second crosses into the next
    for (const [r0, r1] of [
      [0, 4],
      [4, 8],
      [8, 10],
    ])
      generatedElementwiseTile.run(memory, [r0, r1, 3, ...addresses, ...words]);
    expect(Array.from(f32.subarray(128, 158))).toEqual(Array.from({ length: 30 }, (_, i) => i - [1, 2, 4][i % 3]!));
  });

  it.each(Array.from({ length: 12 }, (_, i) => i + 1))('random description with exp %i: SIMD matches the interpreter', (seed) => {
    // exp over the whole float range: underflow to 0, overflow to +∞, 1/e(-x) above 0
    const d = randomDescription(seed + 500, [3, 1 + (seed % 9)], [KOp.exp, KOp.mul, KOp.add, KOp.neg, KOp.sub]);
    const scaled = { ...d, constants: [9.5, -40] };
    expect(emittable(scaled)).toBe(true);
    const { simd, interpreted } = runTile(scaled, false, 2);
    expectClose(simd, interpreted);
  });

  it('exp stays finite up to ln(max float) and reaches denormals below -87.3 (movenet-multipose regression)', () => {
    const xs = [88.7, 88.5, 87.5, 87.31, 50, 1, 0, -0, -1, -50, -87.5, -95, -103, -200, 89, Number.NaN];
    const d: KernelDescription = {
      kind: KernelKind.elementwise,
      dtype: KernelDtype.float32,
      shape: [1, xs.length],
      inputs: [{ size: xs.length, strides: [0, 1] }],
      constants: [],
      instructions: [{ op: KOp.exp, a: 0, b: 0 }],
      output: 1,
      vectorWidth: 4,
    };
    const memory = wasmMemory(false, 1);
    const f32 = new Float32Array(memory.buffer);
    f32.set(xs, 16);
    const words = Array.from(encodeKernelDescription(d));
    generatedElementwiseTile.run(memory, [0, 1, 2, 64, 256, ...words]);
    const got = f32.subarray(64, 64 + xs.length);
    xs.forEach((x, i) => {
      const want = Math.fround(Math.exp(x));
      if (Number.isNaN(want)) expect(got[i], `exp(${x})`).toBeNaN();
      else if (!Number.isFinite(want)) expect(got[i], `exp(${x})`).toBe(want);
      else if (want < 1e-37) expect(Math.abs((got[i] as number) - want), `exp(${x})`).toBeLessThanOrEqual(1e-44);
      else expect(Math.abs((got[i] as number) - want) / want, `exp(${x})`).toBeLessThan(1e-5);
    });
  });

  it('descriptions with ops the emitter lacks run on the interpreter inside the tile', () => {
    const d = randomDescription(5, [3, 7], [KOp.tanh, KOp.add, KOp.erf]);
    expect(emittable(d)).toBe(d.instructions.every((i) => i.op === KOp.add));
    const { simd, interpreted } = runTile(d, false, 2);
    expectClose(simd, interpreted);
  });

  it('a tile with addresses for other inputs than its description is refused', () => {
    const d = randomDescription(3, [4, 4], SIMD_OPS);
    const memory = wasmMemory(false, 4);
    const words = Array.from(encodeKernelDescription(d));
    expect(() =>
      generatedElementwiseTile.run(memory, [0, 1, d.inputs.length + 2, ...new Array(d.inputs.length + 2).fill(64), ...words]),
    ).toThrow(/addresses/);
  });

  it.each(Array.from({ length: 24 }, (_, i) => i + 1))('random row-reduction description %i: SIMD matches the interpreter', (seed) => {
    const rnd = random(seed * 7 + 3);
    const pick = (n: number) => Math.floor(Math.abs(rnd() * 1000)) % n;
    // rows of 1..21 elements (tails of 0..3), one to three leading dims
    const shape = [...Array.from({ length: pick(3) }, () => 1 + pick(4)), 1 + pick(21)];
    const base = randomDescription(seed + 100, shape, [KOp.add, KOp.sub, KOp.mul, KOp.max, KOp.relu, KOp.abs, KOp.exp]);
    // reductions spliced in: each reads an earlier register, later instructions may read it back
    const first = base.inputs.length + base.constants.length;
    const instructions = base.instructions.map((ins, i) =>
      i % 3 === 1 ? { op: pick(2) ? KOp.rowSum : KOp.rowMax, a: pick(first + i), b: 0 } : ins,
    );
    if (!instructions.some((i) => i.op >= 64)) instructions.push({ op: KOp.rowMax, a: 0, b: 0 });
    instructions.push({ op: KOp.sub, a: 0, b: first + instructions.length - 1 });
    const d: KernelDescription = { ...base, kind: KernelKind.rowReduction, instructions, output: first + instructions.length - 1 };
    expect(emittable(d)).toBe(true);
    for (const shared of [false, true]) {
      const { simd, interpreted } = runTile(d, shared, 1 + (seed % 3));
      // sums in four lanes against one float64 sum: allow for the order, relative to the output's scale
      const scale = interpreted.reduce((m, v) => (Number.isFinite(v) ? Math.max(m, Math.abs(v)) : m), 1);
      interpreted.forEach((e, i) => {
        const a = simd[i] as number;
        if (Number.isNaN(e)) expect(a, `element ${i}`).toBeNaN();
        else if (!Number.isFinite(e)) expect(a, `element ${i}`).toBe(e);
        else expect(Math.abs(a - e), `element ${i}: ${a} vs ${e}`).toBeLessThanOrEqual(1e-5 * scale);
      });
    }
  });

  it('a row maximum over a row holding NaN is NaN, in the vector body and in the tail', () => {
    const d: KernelDescription = {
      kind: KernelKind.rowReduction,
      dtype: KernelDtype.float32,
      shape: [2, 6],
      inputs: [{ size: 12, strides: [6, 1] }],
      constants: [],
      instructions: [
        { op: KOp.rowMax, a: 0, b: 0 },
        { op: KOp.sub, a: 0, b: 1 },
      ],
      output: 2,
      vectorWidth: 4,
    };
    const memory = wasmMemory(false, 4);
    const f32 = new Float32Array(memory.buffer);
    // row 0: NaN in the vector part; row 1: NaN in the two-element tail
    f32.set([1, Number.NaN, 3, 4, 5, 6, 1, 2, 3, 4, 5, Number.NaN], 16);
    generatedElementwiseTile.run(memory, [0, 2, 2, 64, 128, ...encodeKernelDescription(d)]);
    expect(Array.from(f32.subarray(32, 44)).every(Number.isNaN)).toBe(true);
  });

  it.each([
    [3, 11],
    [5, 4],
    [2, 1],
    [1, 33],
  ])('a softmax over [%i, %i] reads its exp back from the output in the last pass and matches the interpreter', (rows, n) => {
    const d: KernelDescription = {
      kind: KernelKind.rowReduction,
      dtype: KernelDtype.float32,
      shape: [rows, n],
      inputs: [{ size: rows * n, strides: [n, 1] }],
      constants: [],
      instructions: [
        { op: KOp.rowMax, a: 0, b: 0 },
        { op: KOp.sub, a: 0, b: 1 },
        { op: KOp.exp, a: 2, b: 0 },
        { op: KOp.rowSum, a: 3, b: 0 },
        { op: KOp.div, a: 3, b: 4 },
      ],
      output: 5,
      vectorWidth: 4,
    };
    const { simd, interpreted } = runTile(d, false, 2);
    expectClose(simd, interpreted);
  });

  it('one compiled module serves every shape of a chain; another constant or broadcast kind is another module', () => {
    // y = max(x·0.25 + b, −1.5): x contiguous, b one value per row or a vector
    const at = (shape: number[], perRow: boolean, constant = 0.25): KernelDescription => {
      const rank = shape.length;
      const contiguous = shape.map((_, i) => shape.slice(i + 1).reduce((p, d) => p * d, 1));
      const rows = shape.slice(0, -1).reduce((p, d) => p * d, 1);
      const last = shape[rank - 1] as number;
      return {
        kind: KernelKind.elementwise,
        dtype: KernelDtype.float32,
        shape,
        inputs: [
          { size: rows * last, strides: contiguous },
          perRow
            ? { size: rows, strides: shape.map((_, i) => (i === rank - 1 ? 0 : (contiguous[i] as number) / last)) }
            : { size: last, strides: shape.map((_, i) => (i === rank - 1 ? 1 : 0)) },
        ],
        constants: [constant, -1.5],
        instructions: [
          { op: KOp.mul, a: 0, b: 2 },
          { op: KOp.add, a: 4, b: 1 },
          { op: KOp.clampLo, a: 5, b: 3 },
        ],
        output: 6,
        vectorWidth: 4,
      };
    };
    const shapes = [
      [3, 7],
      [2, 5, 9],
      [1, 13],
      [4, 4, 2, 6],
    ];
    expect(new Set(shapes.map((shape) => codeKey(at(shape, false)))).size).toBe(1);
    expect(codeKey(at([3, 7], true))).not.toBe(codeKey(at([3, 7], false)));
    expect(codeKey(at([3, 7], false, -0))).not.toBe(codeKey(at([3, 7], false, 0)));
    // every shape runs right on the shared module: it is compiled once, on the first
    const before = compiledModuleCount();
    for (const [i, shape] of shapes.entries()) {
      const { simd, interpreted } = runTile(at(shape, i % 2 === 0), false, 2);
      expectClose(simd, interpreted);
    }
    // two modules: the per-row and the vector form of b
    expect(compiledModuleCount() - before).toBe(2);
  });

  it('Relu and clamps keep NaN and −0 as onnxruntime-node does, on SIMD (body and tail) and the interpreter', () => {
    // onnxruntime-node 1.x on [NaN, −0, 0, −1, 7, 3]: Relu gives [NaN, −0, 0, 0, 7, 3], Clip(0, 6) [NaN, −0, 0, 0, 6, 3]
    const x = [Number.NaN, -0, 0, -1, 7, 3, -0, Number.NaN, 5];
    const expected: Record<string, number[]> = {
      relu: [Number.NaN, -0, 0, 0, 7, 3, -0, Number.NaN, 5],
      clip: [Number.NaN, -0, 0, 0, 6, 3, -0, Number.NaN, 5],
    };
    const chains: Record<string, KernelDescription['instructions']> = {
      relu: [{ op: KOp.relu, a: 0, b: 0 }],
      clip: [
        { op: KOp.clampLo, a: 0, b: 1 },
        { op: KOp.clampHi, a: 3, b: 2 },
      ],
    };
    for (const [name, instructions] of Object.entries(chains)) {
      const d: KernelDescription = {
        kind: KernelKind.elementwise,
        dtype: KernelDtype.float32,
        shape: [x.length],
        inputs: [{ size: x.length, strides: [1] }],
        constants: [0, 6],
        instructions,
        output: 2 + instructions.length,
        vectorWidth: 4,
      };
      const memory = wasmMemory(false, 4);
      const f32 = new Float32Array(memory.buffer);
      f32.set(x, 16);
      generatedElementwiseTile.run(memory, [0, 1, 2, 64, 256, ...encodeKernelDescription(d)]);
      const interpreted = new Float32Array(x.length);
      interpretDescription(d, [Float32Array.from(x)], interpreted);
      const show = (v: ArrayLike<number>) => Array.from(v, (e) => (Object.is(e, -0) ? '-0' : String(e)));
      expect(show(f32.subarray(64, 64 + x.length)), `${name} SIMD`).toEqual(show(expected[name] as number[]));
      expect(show(interpreted), `${name} interpreter`).toEqual(show(expected[name] as number[]));
    }
  });
});
