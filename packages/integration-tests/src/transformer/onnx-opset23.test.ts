// ONNX opset 23 Attention, RMSNormalization and RotaryEmbedding on random inputs against
// onnxruntime-node 1.30 (which runs all three at opset 23); the ONNX backend node tests check them
// against the ONNX reference implementation too.
import type { HostTensor } from '@tsge/metadef';
import { describe, it } from 'vitest';
import { expectLikeOrt, int64s, lcg, randomFloats } from './ort-compare.fixture.js';
import { type Attr, type Operand, onnxModel } from './single-node-model.fixture.js';

const operand = (name: string, t: HostTensor): Operand => ({ name, type: t.type as Operand['type'], dims: [...t.dims] });

async function check(
  label: string,
  opType: string,
  feeds: Record<string, HostTensor | undefined>,
  outputs: Operand[],
  attrs: Attr[],
): Promise<void> {
  const names = Object.keys(feeds);
  const present = Object.fromEntries(Object.entries(feeds).filter((e): e is [string, HostTensor] => e[1] !== undefined));
  while (names.length > 0 && feeds[names[names.length - 1] as string] === undefined) names.pop();
  const bytes = onnxModel(
    [{ opType, domain: '', inputs: names.map((n) => (feeds[n] ? n : '')), outputs: outputs.map((o) => o.name), attrs }],
    Object.entries(present).map(([n, t]) => operand(n, t)),
    outputs,
    23,
  );
  await expectLikeOrt({ label, bytes, feeds: present, outputs: outputs.map((o) => o.name), tolerance: 2e-5 });
}

const f32 = (name: string, dims: number[]): Operand => ({ name, type: 'float32', dims });

describe('ONNX opset 23 transformer ops vs onnxruntime-node', () => {
  it('Attention 4-D GQA, causal, past and present', async () => {
    const r = lcg(23);
    const [B, Nq, Nkv, S, P, H] = [2, 4, 2, 3, 2, 8];
    await check(
      'Attention-23 4-D GQA causal past',
      'Attention',
      {
        Q: randomFloats('float32', [B, Nq, S, H], r),
        K: randomFloats('float32', [B, Nkv, S, H], r),
        V: randomFloats('float32', [B, Nkv, S, H], r),
        attn_mask: undefined,
        past_key: randomFloats('float32', [B, Nkv, P, H], r),
        past_value: randomFloats('float32', [B, Nkv, P, H], r),
      },
      [f32('Y', [B, Nq, S, H]), f32('present_key', [B, Nkv, P + S, H]), f32('present_value', [B, Nkv, P + S, H])],
      [{ name: 'is_causal', int: 1 }],
    );
  }, 60_000);

  it('Attention 3-D with a boolean mask, scale and softcap', async () => {
    const r = lcg(24);
    const [B, Nq, Nkv, S, L, H] = [2, 2, 2, 3, 4, 4];
    const mask: HostTensor = { type: 'bool', dims: [S, L], data: Uint8Array.from([1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0]) };
    await check(
      'Attention-23 3-D bool mask',
      'Attention',
      {
        Q: randomFloats('float32', [B, S, Nq * H], r),
        K: randomFloats('float32', [B, L, Nkv * H], r),
        V: randomFloats('float32', [B, L, Nkv * H], r),
        attn_mask: mask,
      },
      [f32('Y', [B, S, Nq * H])],
      [
        { name: 'q_num_heads', int: Nq },
        { name: 'kv_num_heads', int: Nkv },
        { name: 'scale', float: 0.4 },
        { name: 'softcap', float: 2 },
      ],
    );
  }, 60_000);

  it('RMSNormalization over the last axis and over two axes', async () => {
    for (const axis of [-1, 1]) {
      const r = lcg(30 + axis);
      const dims = [2, 3, 8];
      const scaleDims = axis === -1 ? [8] : [3, 8];
      await check(
        `RMSNormalization-23 axis ${axis}`,
        'RMSNormalization',
        { X: randomFloats('float32', dims, r), scale: randomFloats('float32', scaleDims, r) },
        [f32('Y', dims)],
        [
          { name: 'axis', int: axis },
          { name: 'epsilon', float: 1e-6 },
        ],
      );
    }
  }, 60_000);

  it('RotaryEmbedding 4-D interleaved with position ids, 3-D half split partial rotary', async () => {
    const r = lcg(40);
    const maxPos = 10;
    const half = 4;
    const angle = (p: number, j: number) => p * 10000 ** (-j / half);
    const cache = (fn: (x: number) => number): HostTensor => ({
      type: 'float32',
      dims: [maxPos, half],
      data: Float32Array.from({ length: maxPos * half }, (_, i) => fn(angle(Math.floor(i / half), i % half))),
    });
    await check(
      'RotaryEmbedding-23 4-D interleaved',
      'RotaryEmbedding',
      {
        X: randomFloats('float32', [2, 2, 3, 8], r),
        cos_cache: cache(Math.cos),
        sin_cache: cache(Math.sin),
        position_ids: int64s([2, 3], [0, 4, 9, 3, 2, 1]),
      },
      [f32('Y', [2, 2, 3, 8])],
      [{ name: 'interleaved', int: 1 }],
    );
    await check(
      'RotaryEmbedding-23 3-D partial',
      'RotaryEmbedding',
      {
        X: randomFloats('float32', [2, 3, 32], r),
        cos_cache: cache(Math.cos),
        sin_cache: cache(Math.sin),
        position_ids: int64s([2, 3], [1, 2, 3, 5, 6, 7]),
      },
      [f32('Y', [2, 3, 32])],
      [
        { name: 'num_heads', int: 2 },
        { name: 'rotary_embedding_dim', int: 8 },
      ],
    );
  }, 60_000);
});
