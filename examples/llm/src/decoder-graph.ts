// Builds the decoder graph of a Qwen2/Qwen3-class model with the graph builder: embedding Gather,
// SimplifiedLayerNormalization (RMSNorm), com.microsoft GroupQueryAttention with rotary inside and
// the KV cache as its past/present, a SwiGLU MLP and a tied or separate lm_head.
import { defaultRegistries } from '@tsge/ge';
import { type Graph, GraphBuilder, TsgeError, type Value, attr } from '@tsge/metadef';
import type { DecoderConfig } from './config.js';
import { quantizeInt4 } from './quantize.js';

/** Float32 weights by their Hugging Face name ([out, in] for projections). */
export interface WeightSource {
  has(name: string): boolean;
  /** The weight's values and shape. */
  get(name: string): { readonly shape: readonly number[]; readonly data: Float32Array };
}

export interface DecoderGraphOptions {
  /** Positions the rotary cache covers: the longest prompt + generation the graph can run. */
  readonly maxLength: number;
  /** Projections and lm_head as 4-bit MatMulNBits weights (blocks of 32 along K), else float32 MatMul. */
  readonly int4?: boolean;
}

/** Block length of the 4-bit weights. */
export const INT4_BLOCK = 32;

export const pastKey = (layer: number) => `past_key_values.${layer}.key`;
export const pastValue = (layer: number) => `past_key_values.${layer}.value`;
export const presentKey = (layer: number) => `present.${layer}.key`;
export const presentValue = (layer: number) => `present.${layer}.value`;

/** cos and sin of RoPE angles (half-split layout, as GroupQueryAttention reads them): [maxLength, headDim / 2]. */
export function rotaryCaches(config: DecoderConfig, maxLength: number): { cos: Float32Array; sin: Float32Array } {
  const half = config.headDim / 2;
  const cos = new Float32Array(maxLength * half);
  const sin = new Float32Array(maxLength * half);
  for (let p = 0; p < maxLength; p++)
    for (let j = 0; j < half; j++) {
      const angle = p * config.ropeTheta ** ((-2 * j) / config.headDim);
      cos[p * half + j] = Math.cos(angle);
      sin[p * half + j] = Math.sin(angle);
    }
  return { cos, sin };
}

/** [rows, cols] → [cols, rows]. */
export function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c] as number;
  return out;
}

/**
 * The decoder for a batch of one: inputs `input_ids` [1, seq] (int64), `seqlens_k` [1] (total − 1),
 * `total_sequence_length` (scalar) and per layer the past key/value [1, kvHeads, past, headDim];
 * outputs `logits` of the last position [1, 1, vocab] and the present key/values.
 */
export function buildDecoderGraph(config: DecoderConfig, weights: WeightSource, file: string, options: DecoderGraphOptions): Graph {
  const { ops } = defaultRegistries();
  const b = new GraphBuilder('decoder', { ops });
  const { hidden, heads, kvHeads, headDim, vocab, intermediate } = config;
  const weight = (name: string, shape: readonly number[]): Float32Array => {
    if (!weights.has(name)) throw TsgeError.of('TSGE-E4151', { file, tensor: name, reason: 'missing from the checkpoint' });
    const w = weights.get(name);
    if (w.shape.length !== shape.length || w.shape.some((d, i) => d !== shape[i]))
      throw TsgeError.of('TSGE-E4151', {
        file,
        tensor: name,
        reason: `shape [${w.shape.join(', ')}]; config.json implies [${shape.join(', ')}]`,
      });
    return w.data;
  };
  const int64s = (name: string, values: readonly number[]) => b.constant(name, BigInt64Array.from(values, BigInt), [values.length]);
  const rmsNorm = (x: Value, name: string, size: number) =>
    b.op('SimplifiedLayerNormalization', [x, b.constant(name, weight(name, [size]), [size])], {
      attrs: { axis: attr.int(-1), epsilon: attr.float(config.rmsEps) },
    });
  /** x · Wᵀ (+ bias when the checkpoint has one), W stored [out, in]. */
  const matmul = (x: Value, name: string, w: Float32Array, inSize: number, outSize: number): Value => {
    if (!options.int4) return b.op('MatMul', [x, b.constant(name, transpose(w, outSize, inSize), [inSize, outSize])]);
    const q = quantizeInt4(w, outSize, inSize, INT4_BLOCK);
    return b.op(
      'MatMulNBits',
      [x, b.constant(name, q.packed, [outSize, q.blocks, INT4_BLOCK / 2]), b.constant(`${name}.scales`, q.scales, [q.scales.length])],
      {
        domain: 'com.microsoft',
        attrs: { K: attr.int(inSize), N: attr.int(outSize), bits: attr.int(4), block_size: attr.int(INT4_BLOCK) },
      },
    );
  };
  const linear = (x: Value, prefix: string, inSize: number, outSize: number): Value => {
    const y = matmul(x, `${prefix}.weight`, weight(`${prefix}.weight`, [outSize, inSize]), inSize, outSize);
    if (!weights.has(`${prefix}.bias`)) return y;
    return b.op('Add', [y, b.constant(`${prefix}.bias`, weight(`${prefix}.bias`, [outSize]), [outSize])]);
  };
  /** RMSNorm over each head (Qwen3's q_norm / k_norm), when the checkpoint has it. */
  const headNorm = (x: Value, name: string, count: number): Value => {
    if (!weights.has(name)) return x;
    const perHead = b.op('Reshape', [x, int64s(`${name}.split`, [0, 0, count, headDim])]);
    return b.op('Reshape', [rmsNorm(perHead, name, headDim), int64s(`${name}.join`, [0, 0, count * headDim])]);
  };

  const ids = b.input('input_ids', 'int64', [1, 'seq']);
  const seqlens = b.input('seqlens_k', 'int32', [1]);
  const total = b.input('total_sequence_length', 'int32', []);
  const { cos, sin } = rotaryCaches(config, options.maxLength);
  const cosCache = b.constant('cos_cache', cos, [options.maxLength, headDim / 2]);
  const sinCache = b.constant('sin_cache', sin, [options.maxLength, headDim / 2]);
  const embedding = weight('model.embed_tokens.weight', [vocab, hidden]);
  let x = b.op('Gather', [b.constant('model.embed_tokens.weight', embedding, [vocab, hidden]), ids], { attrs: { axis: attr.int(0) } });
  const presents: [Value, string][] = [];
  for (let i = 0; i < config.layers; i++) {
    const p = `model.layers.${i}`;
    const past = [
      b.input(pastKey(i), 'float32', [1, kvHeads, 'past', headDim]),
      b.input(pastValue(i), 'float32', [1, kvHeads, 'past', headDim]),
    ];
    const h = rmsNorm(x, `${p}.input_layernorm.weight`, hidden);
    const q = headNorm(linear(h, `${p}.self_attn.q_proj`, hidden, heads * headDim), `${p}.self_attn.q_norm.weight`, heads);
    const k = headNorm(linear(h, `${p}.self_attn.k_proj`, hidden, kvHeads * headDim), `${p}.self_attn.k_norm.weight`, kvHeads);
    const v = linear(h, `${p}.self_attn.v_proj`, hidden, kvHeads * headDim);
    const [attention, key, value] = b.opN('GroupQueryAttention', [q, k, v, past[0], past[1], seqlens, total, cosCache, sinCache], 3, {
      domain: 'com.microsoft',
      attrs: { num_heads: attr.int(heads), kv_num_heads: attr.int(kvHeads), do_rotary: attr.int(1), rotary_interleaved: attr.int(0) },
    }) as [Value, Value, Value];
    presents.push([key, presentKey(i)], [value, presentValue(i)]);
    x = b.op('Add', [x, linear(attention, `${p}.self_attn.o_proj`, heads * headDim, hidden)]);
    const m = rmsNorm(x, `${p}.post_attention_layernorm.weight`, hidden);
    const gate = linear(m, `${p}.mlp.gate_proj`, hidden, intermediate);
    const up = linear(m, `${p}.mlp.up_proj`, hidden, intermediate);
    const act = b.op('Mul', [b.op('Mul', [gate, b.op('Sigmoid', [gate])]), up]);
    x = b.op('Add', [x, linear(act, `${p}.mlp.down_proj`, intermediate, hidden)]);
  }
  // only the last position's logits are needed to pick the next token
  const last = b.op('Slice', [x, int64s('last.starts', [-1]), int64s('last.ends', [2 ** 53 - 1]), int64s('last.axes', [1])]);
  const normed = rmsNorm(last, 'model.norm.weight', hidden);
  const head = config.tieEmbeddings ? embedding : weight('lm_head.weight', [vocab, hidden]);
  b.output(matmul(normed, 'lm_head.weight', head, hidden, vocab), 'logits');
  for (const [value, name] of presents) b.output(value, name);
  return b.build();
}
