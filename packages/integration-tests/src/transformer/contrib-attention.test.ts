// com.microsoft Attention and MultiHeadAttention on random inputs against onnxruntime-node: mask
// forms (key lengths, end/start positions, raw 2-D and 3-D masks), attention_bias, unidirectional
// with a past state, qkv_hidden_sizes, and MultiHeadAttention's BSD / BNSH / packed KV / packed QKV
// layouts with bias and past_key/past_value.
import type { HostTensor } from '@tsge/metadef';
import { describe, it } from 'vitest';
import { expectLikeOrt, int32s, lcg, randomFloats } from './ort-compare.fixture.js';
import { type Attr, type NodeSpec, type Operand, onnxModel, singleNodeModel } from './single-node-model.fixture.js';

const MS = 'com.microsoft';
const operand = (name: string, t: HostTensor): Operand => ({ name, type: t.type as Operand['type'], dims: [...t.dims] });

/** Runs one node whose optional inputs are the named feeds present, in schema order. */
async function check(options: {
  label: string;
  opType: string;
  schema: readonly string[];
  feeds: Record<string, HostTensor>;
  outputs: readonly Operand[];
  attrs: readonly Attr[];
  tolerance?: number;
  /** Nodes onnxruntime runs before the op on the unpacked inputs (it has no CPU kernel for the packed ones). */
  unpack?: { nodes: readonly NodeSpec[]; inputs: readonly string[] };
}): Promise<void> {
  const inputs = options.schema.map((n) => (options.feeds[n] ? operand(n, options.feeds[n] as HostTensor) : undefined));
  while (inputs[inputs.length - 1] === undefined) inputs.pop();
  await expectLikeOrt({
    label: options.label,
    bytes: singleNodeModel(options.opType, MS, inputs, options.outputs, options.attrs),
    feeds: options.feeds,
    outputs: options.outputs.map((o) => o.name),
    tolerance: options.tolerance ?? 2e-5,
    ...(options.unpack
      ? {
          reference: onnxModel(
            [
              ...options.unpack.nodes,
              {
                opType: options.opType,
                domain: MS,
                inputs: options.unpack.inputs,
                outputs: options.outputs.map((o) => o.name),
                attrs: options.attrs,
              },
            ],
            inputs.filter((i): i is Operand => i !== undefined),
            options.outputs,
          ),
        }
      : {}),
  });
}

/** Split a packed [B, L, N, parts, H] input on axis 3 and reshape each part to [B, L, N · H]. */
function unpackNodes(input: string, parts: readonly string[], shape: readonly number[]): NodeSpec[] {
  return [
    { opType: 'Constant', domain: '', inputs: [], outputs: [`${input}_shape`], attrs: [{ name: 'value_ints', ints: shape }] },
    {
      opType: 'Split',
      domain: '',
      inputs: [input],
      outputs: parts.map((p) => `${p}_5d`),
      attrs: [
        { name: 'axis', int: 3 },
        { name: 'num_outputs', int: parts.length },
      ],
    },
    ...parts.map((p) => ({ opType: 'Reshape', domain: '', inputs: [`${p}_5d`, `${input}_shape`], outputs: [p] })),
  ];
}

const ATTENTION_INPUTS = ['input', 'weights', 'bias', 'mask_index', 'past', 'attention_bias'] as const;

interface AttentionCase {
  name: string;
  batch: number;
  seq: number;
  past?: number;
  heads: number;
  sizes?: [number, number, number];
  mask?: (b: number, t: number, s: number) => HostTensor;
  attentionBias?: boolean;
  unidirectional?: boolean;
  type?: 'float32' | 'float16';
}

const attentionCases: AttentionCase[] = [
  { name: 'no mask', batch: 2, seq: 4, heads: 2 },
  { name: 'key lengths [B]', batch: 2, seq: 4, heads: 2, mask: (b) => int32s([b], [4, 2]) },
  { name: 'end and start positions [2B]', batch: 2, seq: 4, heads: 2, mask: (b) => int32s([2 * b], [4, 3, 0, 1]) },
  {
    name: 'raw mask [B, T]',
    batch: 2,
    seq: 4,
    heads: 2,
    mask: (b, t) => int32s([b, t], [1, 1, 0, 1, 0, 1, 1, 1]),
  },
  {
    name: 'raw mask [B, S, T]',
    batch: 1,
    seq: 3,
    heads: 2,
    mask: (b, t, s) => int32s([b, s, t], [1, 0, 1, 1, 1, 0, 0, 1, 1]),
  },
  {
    name: 'unidirectional with past and present, raw mask',
    batch: 2,
    seq: 3,
    past: 2,
    heads: 2,
    unidirectional: true,
    mask: (b, t) => int32s([b, t], [1, 1, 1, 1, 1, 0, 1, 1, 1, 1]),
  },
  { name: 'qkv_hidden_sizes with a wider V', batch: 2, seq: 3, heads: 2, sizes: [8, 8, 12] },
  { name: 'attention_bias', batch: 2, seq: 3, heads: 2, attentionBias: true, unidirectional: true },
  { name: 'fp16, key lengths', batch: 2, seq: 4, heads: 2, type: 'float16', mask: (b) => int32s([b], [3, 4]) },
];

describe('com.microsoft Attention vs onnxruntime-node', () => {
  for (const c of attentionCases)
    it(c.name, async () => {
      const random = lcg(c.seq * 17 + c.batch + (c.past ?? 0) + c.name.length);
      const type = c.type ?? 'float32';
      const inHidden = 12;
      const [qh, kh, vh] = c.sizes ?? [8, 8, 8];
      const width = qh + kh + vh;
      const past = c.past ?? 0;
      const total = past + c.seq;
      const head = qh / c.heads;
      const feeds: Record<string, HostTensor> = {
        input: randomFloats(type, [c.batch, c.seq, inHidden], random),
        weights: randomFloats(type, [inHidden, width], random),
        bias: randomFloats(type, [width], random),
      };
      if (c.mask) feeds.mask_index = c.mask(c.batch, total, c.seq);
      if (past) feeds.past = randomFloats(type, [2, c.batch, c.heads, past, head], random);
      if (c.attentionBias) feeds.attention_bias = randomFloats(type, [1, c.heads, c.seq, total], random);
      const outputs: Operand[] = [{ name: 'output', type, dims: [c.batch, c.seq, vh] }];
      if (past) outputs.push({ name: 'present', type, dims: [2, c.batch, c.heads, total, head] });
      const attrs: Attr[] = [{ name: 'num_heads', int: c.heads }];
      if (c.sizes) attrs.push({ name: 'qkv_hidden_sizes', ints: c.sizes });
      if (c.unidirectional) attrs.push({ name: 'unidirectional', int: 1 });
      await check({
        label: `Attention ${c.name}`,
        opType: 'Attention',
        schema: ATTENTION_INPUTS,
        feeds,
        outputs,
        attrs,
        tolerance: type === 'float16' ? 1e-2 : 2e-5,
      });
    }, 60_000);
});

const MHA_INPUTS = ['query', 'key', 'value', 'bias', 'key_padding_mask', 'attention_bias', 'past_key', 'past_value'] as const;

interface MhaCase {
  name: string;
  layout: 'bsd' | 'bnsh' | 'packed-kv' | 'packed-qkv';
  seq: number;
  kvSeq: number;
  past?: number;
  bias?: boolean;
  mask?: (b: number, t: number, s: number) => HostTensor;
  attentionBias?: boolean;
  unidirectional?: boolean;
  scale?: number;
}

const mhaCases: MhaCase[] = [
  { name: 'BSD cross attention, bias, key lengths', layout: 'bsd', seq: 3, kvSeq: 5, bias: true, mask: (b) => int32s([b], [5, 3]) },
  {
    name: 'BSD self attention, past and present, unidirectional',
    layout: 'bsd',
    seq: 3,
    kvSeq: 3,
    past: 4,
    bias: true,
    unidirectional: true,
  },
  { name: 'BNSH key and value (cross)', layout: 'bnsh', seq: 2, kvSeq: 6, scale: 0.3 },
  { name: 'packed KV', layout: 'packed-kv', seq: 3, kvSeq: 4 },
  { name: 'packed QKV', layout: 'packed-qkv', seq: 4, kvSeq: 4 },
  {
    name: 'raw key padding mask [B, T] and attention_bias',
    layout: 'bsd',
    seq: 3,
    kvSeq: 4,
    attentionBias: true,
    mask: (b, t) => int32s([b, t], [1, 1, 0, 1, 1, 1, 1, 0]),
  },
  {
    name: '3-D mask [B, S, T]',
    layout: 'bsd',
    seq: 2,
    kvSeq: 3,
    mask: (b, t, s) => int32s([b, s, t], [1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1]),
  },
];

describe('com.microsoft MultiHeadAttention vs onnxruntime-node', () => {
  for (const c of mhaCases)
    it(c.name, async () => {
      const random = lcg(c.seq * 5 + c.kvSeq * 3 + c.name.length);
      const [B, N, H] = [2, 2, 4];
      const D = N * H;
      const past = c.past ?? 0;
      const total = past + c.kvSeq;
      const feeds: Record<string, HostTensor> = {};
      if (c.layout === 'packed-qkv') feeds.query = randomFloats('float32', [B, c.seq, N, 3, H], random);
      else feeds.query = randomFloats('float32', [B, c.seq, D], random);
      if (c.layout === 'bsd') {
        feeds.key = randomFloats('float32', [B, c.kvSeq, D], random);
        feeds.value = randomFloats('float32', [B, c.kvSeq, D], random);
      } else if (c.layout === 'bnsh') {
        feeds.key = randomFloats('float32', [B, N, c.kvSeq, H], random);
        feeds.value = randomFloats('float32', [B, N, c.kvSeq, H], random);
      } else if (c.layout === 'packed-kv') feeds.key = randomFloats('float32', [B, c.kvSeq, N, 2, H], random);
      if (c.bias) feeds.bias = randomFloats('float32', [3 * D], random);
      if (c.mask) feeds.key_padding_mask = c.mask(B, total, c.seq);
      if (c.attentionBias) feeds.attention_bias = randomFloats('float32', [B, 1, c.seq, total], random);
      if (past) {
        feeds.past_key = randomFloats('float32', [B, N, past, H], random);
        feeds.past_value = randomFloats('float32', [B, N, past, H], random);
      }
      const outputs: Operand[] = [{ name: 'output', type: 'float32', dims: [B, c.seq, D] }];
      if (past) {
        outputs.push({ name: 'present_key', type: 'float32', dims: [B, N, total, H] });
        outputs.push({ name: 'present_value', type: 'float32', dims: [B, N, total, H] });
      }
      const attrs: Attr[] = [{ name: 'num_heads', int: N }];
      if (c.unidirectional) attrs.push({ name: 'unidirectional', int: 1 });
      if (c.scale) attrs.push({ name: 'scale', float: c.scale });
      // onnxruntime's CPU has no packed layouts: it runs the unpacked equivalent
      const unpack =
        c.layout === 'packed-kv'
          ? { nodes: unpackNodes('key', ['k', 'v'], [B, c.kvSeq, D]), inputs: ['query', 'k', 'v'] }
          : c.layout === 'packed-qkv'
            ? { nodes: unpackNodes('query', ['q', 'k', 'v'], [B, c.seq, D]), inputs: ['q', 'k', 'v'] }
            : undefined;
      await check({
        label: `MultiHeadAttention ${c.name}`,
        opType: 'MultiHeadAttention',
        schema: MHA_INPUTS,
        feeds,
        outputs,
        attrs,
        ...(unpack ? { unpack } : {}),
      });
    }, 60_000);
});
