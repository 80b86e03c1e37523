import { type KernelDescription, KOp, KernelDtype, KernelKind, encodeKernelDescription, kernelElements } from '@tsge/metadef';
import { interpretDescription } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { emittable, generatedElementwiseTile } from './generated-elementwise.js';
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

  it('descriptions with ops the emitter lacks run on the interpreter inside the tile', () => {
    const d = randomDescription(5, [3, 7], [KOp.exp, KOp.add, KOp.erf]);
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
});
