import type { AttrValue, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { jsKernelLibrary } from '@tsge/kernels-js';
import { describe, expect, it } from 'vitest';
import { simdAttentionKernel } from './simd-attention.js';
import { type Operand, maxRelativeError, operand, runKernel, runTile, wasmMemory } from './simd-test-support.fixture.js';

const reference = jsKernelLibrary.kernels.find((k) => k.opType === 'Attention' && k.domain === 'ai.onnx') as KernelV1;
const kernel = simdAttentionKernel(reference);
const int = (value: number): AttrValue => ({ kind: 'int', value });
const float = (value: number): AttrValue => ({ kind: 'float', value });

/** The kernel with a pool of `threads` that runs its tiles here (last first) and counts them. */
function counting(threads: number): { kernel: KernelV1; tiles: string[] } {
  const tiles: string[] = [];
  return {
    tiles,
    kernel: {
      ...kernel,
      compute: (ctx: KernelContextV1) =>
        kernel.compute({
          ...ctx,
          parallel: {
            threads,
            run: (name, list) => {
              for (const t of [...list].reverse()) {
                tiles.push(name);
                runTile(ctx.memory as NonNullable<typeof ctx.memory>, name, t);
              }
            },
          },
        }),
    },
  };
}

/** Runs reference and SIMD kernel on the same operands; returns the SIMD tiles that ran. */
function compare(inputs: (Operand | undefined)[], attrs: Record<string, AttrValue>, threads = 2): string[] {
  const expected = runKernel(reference, { opType: 'Attention', inputs, attrs });
  const run = counting(threads);
  const actual = runKernel(run.kernel, { opType: 'Attention', inputs, attrs, memory: wasmMemory(false, 160) });
  expect(actual.dims).toEqual(expected.dims);
  // float32 dot products and sums against the reference's float64
  expect(maxRelativeError(actual.values, expected.values, 1)).toBeLessThanOrEqual(2e-5);
  return run.tiles;
}

const qkv = (q: number[], kv: number[], dv = kv[kv.length - 1] as number, seed = 1) => [
  operand(q, seed, 0.5),
  operand(kv, seed + 1, 0.5),
  operand([...kv.slice(0, -1), dv], seed + 2, 0.5),
];

describe('streaming-softmax Attention kernel', () => {
  it('a long sequence, 1 × 8 heads × 512 × 64, with and without a causal mask', () => {
    for (const causal of [0, 1]) {
      const tiles = compare(qkv([1, 8, 512, 64], [1, 8, 512, 64]), { is_causal: int(causal) });
      expect(tiles.length).toBeGreaterThan(1);
      expect(new Set(tiles)).toEqual(new Set(['wasm.attentionRows']));
    }
  });

  it('grouped kv heads, keys not a multiple of the block, an additive mask broadcast over heads', () => {
    const [q, k, v] = qkv([2, 8, 33, 16], [2, 2, 100, 16], 8);
    const mask = operand([2, 1, 33, 100], 9, 1);
    expect(compare([q, k, v, mask], { scale: float(0.3) }).length).toBeGreaterThan(0);
    const row = operand([100], 10, 1);
    expect(compare([q, k, v, row], { scale: float(0.3), is_causal: int(1) }).length).toBeGreaterThan(0);
  });

  it('masks of −∞: masked keys get no weight, a row with every key masked is NaN as in the reference', () => {
    const [q, k, v] = qkv([1, 2, 5, 8], [1, 2, 70, 8]);
    const mask = operand([5, 70], 3, 1);
    // whole blocks masked for row 0, the first block for row 1, every key for row 4
    for (let j = 0; j < 70; j++) {
      if (j < 64) mask.values[j] = Number.NEGATIVE_INFINITY;
      if (j < 64) mask.values[70 + j] = Number.NEGATIVE_INFINITY;
      mask.values[4 * 70 + j] = Number.NEGATIVE_INFINITY;
    }
    compare([q, k, v, mask], {});
  });

  it('3-D operands with q_num_heads and kv_num_heads', () => {
    const q = operand([2, 10, 4 * 8], 4, 0.5);
    const k = operand([2, 12, 2 * 8], 5, 0.5);
    const v = operand([2, 12, 2 * 12], 6, 0.5);
    expect(compare([q, k, v], { q_num_heads: int(4), kv_num_heads: int(2) }).length).toBeGreaterThan(0);
  });

  it('head sizes that are not a multiple of 4 (15 as in PP-OCR, 6 with a v head of 3)', () => {
    expect(compare(qkv([1, 8, 40, 15], [1, 8, 40, 15]), { scale: float(0.26) }).length).toBeGreaterThan(0);
    const [q, k, v] = qkv([2, 2, 9, 6], [2, 2, 70, 6], 3);
    expect(compare([q, k, v, operand([9, 70], 7, 1)], { is_causal: int(1) }).length).toBeGreaterThan(0);
  });

  it('one thread runs whole heads on the calling thread; a KV cache goes to the reference', () => {
    expect(compare(qkv([1, 3, 9, 8], [1, 3, 9, 8]), {}, 1)).toEqual([]);
    const [q, k, v] = qkv([1, 2, 3, 8], [1, 2, 3, 8]);
    const past = [operand([1, 2, 5, 8], 11, 0.5), operand([1, 2, 5, 8], 12, 0.5)];
    expect(compare([q, k, v, undefined, ...past], {})).toEqual([]);
  });
});
