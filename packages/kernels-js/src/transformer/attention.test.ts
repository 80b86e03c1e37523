import { attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { expectClose, f32, runOp, tensorOf, values } from '../nn/test-support.fixture.js';
import { attentionKernels } from './attention.js';
import { rotaryEmbeddingKernels } from './rotary-embedding.js';

function softmax(xs: number[]): number[] {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

describe('Attention', () => {
  const q = f32([1, 1, 2, 2], [1, 0, 0, 1]);
  const k = f32([1, 1, 2, 2], [1, 0, 0, 1]);
  const v = f32([1, 1, 2, 2], [1, 2, 3, 4]);
  it('computes scaled dot-product attention', () => {
    const y = runOp(attentionKernels, 'Attention', [q, k, v])[0];
    const p0 = softmax([1 / Math.SQRT2, 0]);
    const p1 = softmax([0, 1 / Math.SQRT2]);
    expectClose(values(y), [p0[0]! * 1 + p0[1]! * 3, p0[0]! * 2 + p0[1]! * 4, p1[0]! * 1 + p1[1]! * 3, p1[0]! * 2 + p1[1]! * 4]);
  });
  it('applies causal masking, bool masks and returns present key/value', () => {
    const [y, pk, pv] = runOp(attentionKernels, 'Attention', [q, k, v], { is_causal: attr.int(1) }, 3);
    expectClose(values(y).slice(0, 2), [1, 2]);
    expect(pk?.dims).toEqual([1, 1, 2, 2]);
    expect(values(pv)).toEqual([1, 2, 3, 4]);
    const mask = tensorOf('bool', [2, 2], [1, 0, 1, 1]);
    const m = runOp(attentionKernels, 'Attention', [q, k, v, mask])[0];
    expectClose(values(m).slice(0, 2), [1, 2]);
  });
  it('handles 3-D inputs with grouped KV heads and past state', () => {
    const q3 = f32([1, 1, 4], [1, 0, 0, 1]);
    const k3 = f32([1, 1, 2], [1, 0]);
    const v3 = f32([1, 1, 2], [5, 6]);
    const past = f32([1, 1, 1, 2], [0, 1]);
    const pastV = f32([1, 1, 1, 2], [7, 8]);
    const [y, pk] = runOp(
      attentionKernels,
      'Attention',
      [q3, k3, v3, undefined, past, pastV],
      { q_num_heads: attr.int(2), kv_num_heads: attr.int(1) },
      2,
    );
    expect(y?.dims).toEqual([1, 1, 4]);
    expect(pk?.dims).toEqual([1, 1, 2, 2]);
    const s = 1 / Math.SQRT2;
    const h0 = softmax([0, s]);
    const h1 = softmax([s, 0]);
    expectClose(values(y), [h0[0]! * 7 + h0[1]! * 5, h0[0]! * 8 + h0[1]! * 6, h1[0]! * 7 + h1[1]! * 5, h1[0]! * 8 + h1[1]! * 6]);
  });
  it('produces the softmax as qk output mode 3', () => {
    const out = runOp(
      attentionKernels,
      'Attention',
      [q, k, v, undefined, undefined, undefined],
      { qk_matmul_output_mode: attr.int(3), scale: attr.float(1) },
      4,
    );
    expectClose(values(out[3]).slice(0, 2), softmax([1, 0]));
  });
});

describe('RotaryEmbedding', () => {
  it('rotates halves and interleaved pairs', () => {
    const x = f32([1, 1, 1, 4], [1, 2, 3, 4]);
    const cos = f32([1, 1, 2], [0, 1]);
    const sin = f32([1, 1, 2], [1, 0]);
    expect(values(runOp(rotaryEmbeddingKernels, 'RotaryEmbedding', [x, cos, sin])[0])).toEqual([-3, 2, 1, 4]);
    expect(values(runOp(rotaryEmbeddingKernels, 'RotaryEmbedding', [x, cos, sin], { interleaved: attr.int(1) })[0])).toEqual([-2, 1, 3, 4]);
  });
  it('gathers caches by position_ids', () => {
    const x = f32([1, 1, 1, 2], [1, 2]);
    const cos = f32([2, 1], [1, 0]);
    const sin = f32([2, 1], [0, 1]);
    const pos = createTensor('int64', [1, 1], BigInt64Array.from([1n]));
    expect(values(runOp(rotaryEmbeddingKernels, 'RotaryEmbedding', [x, cos, sin, pos])[0])).toEqual([-2, 1]);
  });
});
