/**
 * com.microsoft Attention (BERT/GPT-2 exports): one input projected by merged Q/K/V weights, multi-
 * head attention with an optional mask_index (key lengths [B], end/start positions [2B], raw 0/1
 * masks [B, T] or [B, S, T], Megatron [B, 1, M, M]), attention_bias, unidirectional masking and a
 * past/present KV cache stacked as [2, B, N, T, H].
 */
import { type InferenceContextV1, type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

/** The Q, K and V widths: qkv_hidden_sizes, or the weights' width split in three. */
export function contribAttentionWidths(ctx: InferenceContextV1, weightsWidth: number): [number, number, number] | undefined {
  const sizes = ctx.attrs.ints('qkv_hidden_sizes', []);
  if (sizes.length > 0) {
    if (sizes.length !== 3) throw new InferenceError(`Attention ${ctx.nodeName}: qkv_hidden_sizes must hold 3 values`);
    return [sizes[0] as number, sizes[1] as number, sizes[2] as number];
  }
  if (weightsWidth < 0) return undefined;
  if (weightsWidth % 3 !== 0) throw new InferenceError(`Attention ${ctx.nodeName}: weights width ${weightsWidth} is not divisible by 3`);
  return [weightsWidth / 3, weightsWidth / 3, weightsWidth / 3];
}

function inferContribAttention(ctx: InferenceContextV1): void {
  const input = inputInfo(ctx, 0);
  const weights = inputInfo(ctx, 1);
  const name = `Attention ${ctx.nodeName}`;
  const heads = ctx.attrs.int('num_heads', 0);
  if (heads <= 0) throw new InferenceError(`${name}: num_heads must be positive`);
  if (ctx.attrs.int('do_rotary', 0) !== 0) throw new InferenceError(`${name}: do_rotary is not supported`);
  if (ctx.attrs.int('past_present_share_buffer', 0) !== 0) throw new InferenceError(`${name}: past_present_share_buffer is not supported`);
  if (ctx.input(6)) throw new InferenceError(`${name}: past_sequence_length is only used with past_present_share_buffer`);
  if (!isUnknownRank(input.shape) && input.shape.length !== 3)
    throw new InferenceError(`${name}: input must be 3-D [batch, sequence, input_hidden]`);
  if (!isUnknownRank(weights.shape) && weights.shape.length !== 2)
    throw new InferenceError(`${name}: weights must be 2-D [input_hidden, q + k + v hidden]`);
  const width = isUnknownRank(weights.shape) ? -1 : weights.shape[1];
  const widths = contribAttentionWidths(ctx, typeof width === 'number' ? width : -1);
  if (widths) {
    const [q, k, v] = widths;
    if (q !== k) throw new InferenceError(`${name}: Q and K hidden sizes differ (${q}, ${k})`);
    if (q % heads !== 0 || v % heads !== 0)
      throw new InferenceError(`${name}: hidden sizes (${q}, ${v}) must be multiples of num_heads ${heads}`);
    if (typeof width === 'number' && width >= 0 && width !== q + k + v)
      throw new InferenceError(`${name}: weights width ${width} differs from qkv_hidden_sizes sum ${q + k + v}`);
    if (ctx.input(4) && v !== q) throw new InferenceError(`${name}: a past state needs equal Q, K and V hidden sizes`);
  }
  const batch: Shape[number] = isUnknownRank(input.shape) ? -1 : (input.shape[0] as Shape[number]);
  const seq: Shape[number] = isUnknownRank(input.shape) ? -1 : (input.shape[1] as Shape[number]);
  ctx.setOutput(0, { dtype: input.dtype, shape: [batch, seq, widths ? widths[2] : -1] });
  if (ctx.outputCount > 1) {
    const past = ctx.input(4);
    const pastSeq = past ? (isUnknownRank(past.shape) ? -1 : past.shape[3]) : 0;
    const total: Shape[number] = typeof pastSeq === 'number' && pastSeq >= 0 && typeof seq === 'number' && seq >= 0 ? pastSeq + seq : -1;
    ctx.setOutput(1, { dtype: input.dtype, shape: [2, batch, heads, total, widths ? widths[0] / heads : -1] });
  }
}

export const contribAttentionOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Attention',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [
      param.required('input', 'T'),
      param.required('weights', 'T'),
      param.optional('bias', 'T'),
      param.optional('mask_index', 'M'),
      param.optional('past', 'T'),
      param.optional('attention_bias', 'T'),
      param.optional('past_sequence_length', 'M'),
    ],
    outputs: [param.required('output', 'T'), param.optional('present', 'T')],
    attributes: [
      { name: 'num_heads', kind: 'int', required: true },
      { name: 'qkv_hidden_sizes', kind: 'ints', default: { kind: 'ints', value: [] } },
      { name: 'unidirectional', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'mask_filter_value', kind: 'float', default: { kind: 'float', value: -10000 } },
      { name: 'scale', kind: 'float', default: { kind: 'float', value: 0 } },
      { name: 'do_rotary', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'rotary_embedding_dim', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'past_present_share_buffer', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T', allowed: ['float32', 'float16', 'bfloat16'] },
      { name: 'M', allowed: ['int32'] },
    ],
    infer: inferContribAttention,
  }),
];
