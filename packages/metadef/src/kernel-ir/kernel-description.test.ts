import { describe, expect, it } from 'vitest';
import { TsgeError } from '../errors/tsge-error.js';
import {
  KERNEL_DESCRIPTION_MAGIC,
  type KernelDescription,
  KernelDtype,
  KernelKind,
  KOp,
  decodeKernelDescription,
  encodeKernelDescription,
  registerPasses,
  rowPasses,
} from './kernel-description.js';

// y = relu(x · s + 0.5) over [2, 3, 4] with s broadcast per row of the middle dim
const sample: KernelDescription = {
  kind: KernelKind.elementwise,
  dtype: KernelDtype.float32,
  shape: [2, 3, 4],
  inputs: [
    { size: 24, strides: [12, 4, 1] },
    { size: 3, strides: [0, 1, 0] },
  ],
  constants: [0.5],
  instructions: [
    { op: KOp.mul, a: 0, b: 1 },
    { op: KOp.add, a: 3, b: 2 },
    { op: KOp.relu, a: 4, b: 0 },
  ],
  output: 5,
  vectorWidth: 4,
};

function codeOf(words: ArrayLike<number>): string | undefined {
  try {
    decodeKernelDescription(words, 'k0');
    return undefined;
  } catch (e) {
    if (TsgeError.isInstance(e)) return e.code;
    throw e;
  }
}

/** The sample's words with one changed (index from the end when negative). */
function patched(index: number, value: number): number[] {
  const words = Array.from(encodeKernelDescription(sample));
  words[index < 0 ? words.length + index : index] = value;
  return words;
}

describe('kernel descriptions', () => {
  it('round-trip through their words', () => {
    const words = encodeKernelDescription(sample);
    expect(words[0]).toBe(KERNEL_DESCRIPTION_MAGIC);
    expect(decodeKernelDescription(words, 'k0')).toEqual(sample);
  });

  // word layout of the sample: magic, version, kind, dtype, rank, 3 dims, input count,
  // (size, 3 strides) × 2, constant count, 1 constant, instruction count, 3 × 3, output, vector width
  it.each([
    ['a bad magic', patched(0, 7), 'TSGE-E7100'],
    ['an unknown version', patched(1, 2), 'TSGE-E7100'],
    ['an unknown kind', patched(2, 9), 'TSGE-E7101'],
    ['an unknown dtype', patched(3, 0), 'TSGE-E7101'],
    ['rank 0', patched(4, 0), 'TSGE-E7101'],
    ['a zero dim', patched(5, 0), 'TSGE-E7101'],
    ['a negative dim', patched(6, -4), 'TSGE-E7101'],
    ['an input smaller than its strides reach', patched(9, 23), 'TSGE-E7101'],
    ['a stride reaching past the input', patched(15, 2), 'TSGE-E7101'],
    ['a negative stride', patched(12, -1), 'TSGE-E7101'],
    ['an unknown op code', patched(20, 99), 'TSGE-E7101'],
    ['an operand defined later', patched(21, 5), 'TSGE-E7101'],
    ['an operand past every register', patched(22, 99), 'TSGE-E7101'],
    ['a unary op with a second operand', patched(-3, 1), 'TSGE-E7101'],
    ['an output register never written', patched(-2, 6), 'TSGE-E7101'],
    ['a vector width of 3', patched(-1, 3), 'TSGE-E7101'],
    ['a truncated description', Array.from(encodeKernelDescription(sample)).slice(0, 20), 'TSGE-E7100'],
    ['trailing words', [...encodeKernelDescription(sample), 0], 'TSGE-E7100'],
    ['a non-integer word', patched(5, 1.5), 'TSGE-E7100'],
    ['a huge constant count', patched(17, 1 << 20), 'TSGE-E7101'],
    ['too many words', new Array(9000).fill(0), 'TSGE-E7101'],
    ['an output of more than 2^30 elements', patched(5, 2 ** 30), 'TSGE-E7101'],
  ])('refuse %s', (_what, words, code) => {
    expect(codeOf(words)).toBe(code);
  });

  it('name the kernel and the reason in the error', () => {
    expect(() => decodeKernelDescription(patched(20, 99), 'KERNELS "description:3"')).toThrow(
      /kernel description KERNELS "description:3" is out of range: instruction 0: unknown op code 99/,
    );
  });

  // LayerNorm over rows of 5: m = Σx / 5, d = x − m, v = Σd² / 5, y = d / sqrt(v + ε) · γ
  const layerNorm: KernelDescription = {
    kind: KernelKind.rowReduction,
    dtype: KernelDtype.float32,
    shape: [3, 5],
    inputs: [
      { size: 15, strides: [5, 1] },
      { size: 5, strides: [0, 1] },
    ],
    constants: [5, 2 ** -10],
    instructions: [
      { op: KOp.rowSum, a: 0, b: 0 }, // 4
      { op: KOp.div, a: 4, b: 2 }, // 5: mean
      { op: KOp.sub, a: 0, b: 5 }, // 6: d
      { op: KOp.mul, a: 6, b: 6 }, // 7
      { op: KOp.rowSum, a: 7, b: 0 }, // 8
      { op: KOp.div, a: 8, b: 2 }, // 9: variance
      { op: KOp.add, a: 9, b: 3 }, // 10
      { op: KOp.sqrt, a: 10, b: 0 }, // 11
      { op: KOp.div, a: 6, b: 11 }, // 12
      { op: KOp.mul, a: 12, b: 1 }, // 13
    ],
    output: 13,
    vectorWidth: 4,
  };

  it('a row-reduction kernel runs in passes: each recomputes only what its reductions or the output need', () => {
    expect(decodeKernelDescription(encodeKernelDescription(layerNorm), 'k0')).toEqual(layerNorm);
    expect(registerPasses(layerNorm)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
    expect(rowPasses(layerNorm)).toEqual([
      { evaluate: [], accumulate: [0], store: false },
      { evaluate: [1, 2, 3], accumulate: [4], store: false },
      { evaluate: [1, 2, 5, 6, 7, 8, 9], accumulate: [], store: true },
    ]);
    // d read back in the last pass: the mean is not recomputed for it
    expect(rowPasses(layerNorm, 2)[2]).toEqual({ evaluate: [5, 6, 7, 8, 9], accumulate: [], store: true });
    // an elementwise kernel is one pass of every instruction the output needs
    expect(rowPasses(sample)).toEqual([{ evaluate: [0, 1, 2], accumulate: [], store: true }]);
  });

  it.each([
    ['a row reduction in an elementwise kernel', { ...layerNorm, kind: KernelKind.elementwise }, 'TSGE-E7104'],
    ['a row-reduction kernel without a reduction', { ...sample, kind: KernelKind.rowReduction }, 'TSGE-E7104'],
    [
      'more reductions in sequence than the limit',
      {
        ...layerNorm,
        instructions: Array.from({ length: 8 }, (_, i) => ({ op: KOp.rowMax, a: i === 0 ? 0 : 3 + i, b: 0 })),
        output: 11,
      },
      'TSGE-E7104',
    ],
    ['a reduction with a second operand', { ...layerNorm, instructions: [{ op: KOp.rowSum, a: 0, b: 1 }], output: 4 }, 'TSGE-E7101'],
    ['an unknown kind', { ...layerNorm, kind: 3 as 2 }, 'TSGE-E7101'],
  ])('%s is a coded error', (_, d, code) => {
    expect(codeOf(encodeKernelDescription(d as KernelDescription))).toBe(code);
  });
});
