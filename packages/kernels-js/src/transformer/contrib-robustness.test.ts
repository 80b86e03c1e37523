// The contrib-op reference kernels on random, mostly malformed inputs: every failure is a
// TsgeError or AttrError naming the node, never a raw TypeError/RangeError.
import { AttrError, type AttrValue, type DataType, type HostTensor, TsgeError, attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { runKernelOnHost } from '../host/run-on-host.js';
import { nnKernels } from '../nn/index.js';
import { transformerKernels } from './index.js';

const OPS = new Set([
  'Attention',
  'MultiHeadAttention',
  'RotaryEmbedding',
  'EmbedLayerNormalization',
  'SkipSimplifiedLayerNormalization',
  'SimplifiedLayerNormalization',
  'BiasSplitGelu',
  'MatMulNBits',
  'GatherBlockQuantized',
  'DynamicQuantizeMatMul',
]);
const kernels = [...transformerKernels, ...nnKernels].filter(
  (k) => OPS.has(k.opType) && (k.domain === 'com.microsoft' || k.opType === 'SimplifiedLayerNormalization'),
);

function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

// float32 and int32 weighted up so that inputs get past the first checks more often
const TYPES: readonly DataType[] = [
  'float32',
  'float32',
  'float32',
  'float16',
  'int32',
  'int32',
  'int64',
  'uint8',
  'uint8',
  'int8',
  'bool',
  'string',
];
const ATTRS: readonly Record<string, AttrValue>[] = [
  {},
  { num_heads: attr.int(2) },
  { num_heads: attr.int(1), unidirectional: attr.int(1), qkv_hidden_sizes: attr.ints([2, 2, 4]) },
  { num_heads: attr.int(0), interleaved: attr.int(1), rotary_embedding_dim: attr.int(4) },
  { K: attr.int(4), N: attr.int(2), block_size: attr.int(16), bits: attr.int(4) },
  { K: attr.int(3), N: attr.int(3), block_size: attr.int(32), bits: attr.int(8) },
  { gather_axis: attr.int(0), quantize_axis: attr.int(-1), block_size: attr.int(16), bits: attr.int(4) },
  { axis: attr.int(7), epsilon: attr.float(0) },
];

function randomTensor(random: () => number): HostTensor {
  const type = TYPES[Math.floor(random() * TYPES.length)] as DataType;
  const dims = Array.from({ length: Math.floor(random() * 5) }, () => [1, 2, 2, 4, 0, 3][Math.floor(random() * 6)] as number);
  const t = createTensor(type, dims);
  const data = t.data as unknown as { [i: number]: unknown; length: number };
  for (let i = 0; i < data.length; i++) {
    const v = Math.floor(random() * 12) - 4;
    data[i] = type === 'string' ? String(v) : type === 'int64' ? BigInt(v) : type === 'bool' ? v & 1 : type === 'uint8' ? Math.abs(v) : v;
  }
  return t;
}

describe('contrib kernels on malformed inputs', () => {
  it('fail only with TsgeError or AttrError', () => {
    expect(kernels.length).toBe(OPS.size);
    const random = generator(7);
    const raw: string[] = [];
    for (let round = 0; round < 1500; round++) {
      for (const kernel of kernels) {
        const inputs = Array.from({ length: 1 + Math.floor(random() * 8) }, () => (random() < 0.2 ? undefined : randomTensor(random)));
        const attrs = ATTRS[Math.floor(random() * ATTRS.length)] as Record<string, AttrValue>;
        try {
          runKernelOnHost(kernel, inputs, { attrs: new Map(Object.entries(attrs)), outputCount: 3 });
        } catch (error) {
          if (!TsgeError.isInstance(error) && !(error instanceof AttrError)) raw.push(`${kernel.opType}: ${String(error)}`);
        }
      }
    }
    expect([...new Set(raw)]).toEqual([]);
  });
});
