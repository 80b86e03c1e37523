// com.microsoft GroupQueryAttention on random inputs, against onnxruntime-node: separate and packed
// QKV, rotary (half-split and interleaved), local window, softcap, smooth softmax, float16 caches,
// first prompt, subsequent prompt and decode with per-batch seqlens_k.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import { type HostTensor, float16ToNumber, numberToFloat16 } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { type Attr, type Operand, singleNodeModel } from './single-node-model.fixture.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Float = 'float32' | 'float16';

interface Case {
  name: string;
  type: Float;
  batch: number;
  seq: number;
  past: number;
  heads: number;
  kvHeads: number;
  head: number;
  seqlens: number[];
  total: number;
  packed?: boolean;
  rotary?: { interleaved: boolean; half: number };
  attrs?: Attr[];
}

function floats(type: Float, dims: number[], random: () => number): HostTensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, () => random() * 2 - 1);
  if (type === 'float32') return { type, dims, data: Float32Array.from(values) };
  return { type, dims, data: Uint16Array.from(values, numberToFloat16) };
}

const numbers = (t: { type: string; data: unknown }): number[] =>
  t.type === 'float16' ? Array.from(t.data as Uint16Array, float16ToNumber) : Array.from(t.data as Float32Array);

async function check(c: Case): Promise<void> {
  const random = lcg(c.seq * 31 + c.past * 7 + c.heads);
  const width = (c.packed ? c.heads + 2 * c.kvHeads : c.heads) * c.head;
  const maxPos = c.total + 2;
  const feeds: Record<string, HostTensor> = {
    query: floats(c.type, [c.batch, c.seq, width], random),
    past_key: floats(c.type, [c.batch, c.kvHeads, c.past, c.head], random),
    past_value: floats(c.type, [c.batch, c.kvHeads, c.past, c.head], random),
    seqlens_k: { type: 'int32', dims: [c.batch], data: Int32Array.from(c.seqlens) },
    total_sequence_length: { type: 'int32', dims: [], data: Int32Array.of(c.total) },
  };
  if (!c.packed) {
    feeds.key = floats(c.type, [c.batch, c.seq, c.kvHeads * c.head], random);
    feeds.value = floats(c.type, [c.batch, c.seq, c.kvHeads * c.head], random);
  }
  if (c.rotary) {
    const { half } = c.rotary;
    const angle = (p: number, j: number) => p * 10000 ** (-j / half);
    const cos = Array.from({ length: maxPos * half }, (_, i) => Math.cos(angle(Math.floor(i / half), i % half)));
    const sin = Array.from({ length: maxPos * half }, (_, i) => Math.sin(angle(Math.floor(i / half), i % half)));
    const of = (v: number[]): HostTensor =>
      c.type === 'float32'
        ? { type: c.type, dims: [maxPos, half], data: Float32Array.from(v) }
        : { type: c.type, dims: [maxPos, half], data: Uint16Array.from(v, numberToFloat16) };
    feeds.cos_cache = of(cos);
    feeds.sin_cache = of(sin);
  }
  const op = (name: string, type: Operand['type'], dims: (number | string)[]): Operand => ({ name, type, dims });
  const inputs: (Operand | undefined)[] = [
    op('query', c.type, ['batch', 'seq', width]),
    c.packed ? undefined : op('key', c.type, ['batch', 'seq', c.kvHeads * c.head]),
    c.packed ? undefined : op('value', c.type, ['batch', 'seq', c.kvHeads * c.head]),
    op('past_key', c.type, ['batch', c.kvHeads, 'past', c.head]),
    op('past_value', c.type, ['batch', c.kvHeads, 'past', c.head]),
    op('seqlens_k', 'int32', ['batch']),
    op('total_sequence_length', 'int32', []),
    ...(c.rotary ? [op('cos_cache', c.type, ['max', c.rotary.half]), op('sin_cache', c.type, ['max', c.rotary.half])] : []),
  ];
  const outputs = [
    op('output', c.type, ['batch', 'seq', c.heads * c.head]),
    op('present_key', c.type, ['batch', c.kvHeads, 'present', c.head]),
    op('present_value', c.type, ['batch', c.kvHeads, 'present', c.head]),
  ];
  const attrs: Attr[] = [
    { name: 'num_heads', int: c.heads },
    { name: 'kv_num_heads', int: c.kvHeads },
    ...(c.rotary
      ? [
          { name: 'do_rotary', int: 1 },
          { name: 'rotary_interleaved', int: c.rotary.interleaved ? 1 : 0 },
        ]
      : []),
    ...(c.attrs ?? []),
  ];
  const bytes = singleNodeModel('GroupQueryAttention', 'com.microsoft', inputs, outputs, attrs);
  const session = await ort.InferenceSession.create(bytes);
  const expected = await session.run(
    Object.fromEntries(
      Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor(t.type as 'float32', t.data as Float32Array, t.dims as number[])]),
    ),
  );
  await session.release();
  const model = await loadModel((await compileModel(await parseModel(bytes, { fileName: 'gqa.onnx' }))).om, { threads: 1 });
  const actual = await model.run(feeds);
  await model.release();
  for (const name of ['output', 'present_key', 'present_value']) {
    const want = expected[name] as ort.Tensor;
    const got = actual[name] as HostTensor;
    expect(got.dims, `${c.name}: ${name}`).toEqual(want.dims);
    const a = numbers(got);
    const b = numbers(want);
    const tolerance = c.type === 'float16' ? 4e-3 : 2e-5;
    let worst = 0;
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
    expect(worst, `${c.name}: ${name}`).toBeLessThanOrEqual(tolerance);
  }
}

const cases: Case[] = [
  { name: 'first prompt, fp32', type: 'float32', batch: 2, seq: 5, past: 0, heads: 4, kvHeads: 2, head: 8, seqlens: [4, 4], total: 5 },
  {
    name: 'decode, fp32, ragged seqlens',
    type: 'float32',
    batch: 2,
    seq: 1,
    past: 6,
    heads: 4,
    kvHeads: 1,
    head: 8,
    seqlens: [6, 3],
    total: 7,
  },
  {
    name: 'decode, fp16 cache, packed QKV, rotary',
    type: 'float16',
    batch: 2,
    seq: 1,
    past: 6,
    heads: 4,
    kvHeads: 2,
    head: 16,
    seqlens: [6, 4],
    total: 7,
    packed: true,
    rotary: { interleaved: false, half: 8 },
  },
  {
    name: 'first prompt, fp16, interleaved partial rotary, local window',
    type: 'float16',
    batch: 1,
    seq: 8,
    past: 0,
    heads: 2,
    kvHeads: 2,
    head: 32,
    seqlens: [7],
    total: 8,
    rotary: { interleaved: true, half: 8 },
    attrs: [{ name: 'local_window_size', int: 3 }],
  },
  {
    name: 'first prompt, fp32, local window',
    type: 'float32',
    batch: 1,
    seq: 8,
    past: 0,
    heads: 2,
    kvHeads: 2,
    head: 8,
    seqlens: [7],
    total: 8,
    attrs: [{ name: 'local_window_size', int: 3 }],
  },
  {
    name: 'first prompt, fp32, interleaved rotary',
    type: 'float32',
    batch: 1,
    seq: 8,
    past: 0,
    heads: 2,
    kvHeads: 2,
    head: 32,
    seqlens: [7],
    total: 8,
    rotary: { interleaved: true, half: 8 },
  },
  {
    name: 'subsequent prompt, fp32, softcap, smooth softmax, scale',
    type: 'float32',
    batch: 1,
    seq: 3,
    past: 4,
    heads: 4,
    kvHeads: 2,
    head: 8,
    seqlens: [6],
    total: 7,
    attrs: [
      { name: 'softcap', float: 0.7 },
      { name: 'smooth_softmax', int: 1 },
      { name: 'scale', float: 0.5 },
    ],
  },
];

describe('com.microsoft GroupQueryAttention vs onnxruntime-node', () => {
  for (const c of cases) it(c.name, () => check(c), 60_000);
});
