import { numberToFloat16 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { readWeights } from './weights.js';

describe('TensorFlow.js weights manifest', () => {
  it('reads float32, int32, bool and strings across shards, and dequantizes uint8, uint16 and float16', async () => {
    const parts: number[] = [];
    const push = (bytes: ArrayLike<number>) => parts.push(...Array.from(bytes));
    push(new Uint8Array(Float32Array.of(1.5, -2).buffer));
    push(new Uint8Array(Int32Array.of(7).buffer));
    push([1, 0, 1]);
    push([0, 128, 255]); // uint8: q * 0.5 - 1
    push(new Uint8Array(Uint16Array.of(0, 1000).buffer)); // uint16: q * 0.01 + 2
    push(new Uint8Array(Uint16Array.of(numberToFloat16(0.25), numberToFloat16(-3)).buffer));
    const text = new TextEncoder().encode('héllo');
    push(new Uint8Array(Uint32Array.of(text.length).buffer));
    push(text);
    const all = Uint8Array.from(parts);
    // split the group over two shard files at an odd offset
    const shards: Record<string, Uint8Array> = { a: all.subarray(0, 13), b: all.subarray(13) };
    const manifest = [
      {
        paths: ['a', 'b'],
        weights: [
          { name: 'f', shape: [2], dtype: 'float32' },
          { name: 'i', shape: [], dtype: 'int32' },
          { name: 'b', shape: [3], dtype: 'bool' },
          { name: 'q8', shape: [3], dtype: 'float32', quantization: { dtype: 'uint8', scale: 0.5, min: -1 } },
          { name: 'q16', shape: [2], dtype: 'float32', quantization: { dtype: 'uint16', scale: 0.01, min: 2 } },
          { name: 'h', shape: [2], dtype: 'float32', quantization: { dtype: 'float16' } },
          { name: 's', shape: [1], dtype: 'string' },
        ],
      },
    ];
    const w = await readWeights(manifest, async (p) => shards[p] as Uint8Array);
    const data = (name: string) => Array.from((w.get(name) as NonNullable<ReturnType<typeof w.get>>).data as ArrayLike<number>);
    expect(data('f')).toEqual([1.5, -2]);
    expect(data('i')).toEqual([7]);
    expect(data('b')).toEqual([1, 0, 1]);
    expect(data('q8')).toEqual([-1, 63, 126.5]);
    const q16 = data('q16');
    expect(q16[0]).toBeCloseTo(2, 6);
    expect(q16[1]).toBeCloseTo(12, 5);
    expect(data('h')).toEqual([0.25, -3]);
    expect(w.get('s')?.data).toEqual(['héllo']);
  });

  it('names a truncated shard and a malformed entry', async () => {
    const short = [{ paths: ['a'], weights: [{ name: 'f', shape: [4], dtype: 'float32' }] }];
    await expect(readWeights(short, async () => new Uint8Array(8))).rejects.toMatchObject({ code: 'TSGE-E3108' });
    await expect(
      readWeights([{ paths: ['a'], weights: [{ name: 'x', shape: [-1], dtype: 'float32' }] }], async () => new Uint8Array(0)),
    ).rejects.toMatchObject({
      code: 'TSGE-E3108',
    });
  });
});
