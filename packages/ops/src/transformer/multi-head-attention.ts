/**
 * com.microsoft MultiHeadAttention: attention over already projected Q/K/V. Layouts: Q [B, S, D]
 * with K/V [B, L, D] (optionally with past_key/past_value [B, N, P, H] and a packed bias), K/V
 * already per head [B, N, L, H] (cross attention), packed KV [B, L, N, 2, H] or packed QKV
 * [B, S, N, 3, H]. key_padding_mask is key lengths [B] or a raw 0/1 mask [B, T] / [B, S, T].
 */
import { type InferenceContextV1, type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

const known = (d: Shape[number] | undefined): d is number => typeof d === 'number' && d >= 0;

function inferMultiHeadAttention(ctx: InferenceContextV1): void {
  const q = inputInfo(ctx, 0);
  const name = `MultiHeadAttention ${ctx.nodeName}`;
  const heads = ctx.attrs.int('num_heads', 0);
  if (heads <= 0) throw new InferenceError(`${name}: num_heads must be positive`);
  if (ctx.input(8) || ctx.input(9))
    throw new InferenceError(`${name}: past_sequence_length and cache_indirection (beam search) are not supported`);
  if (ctx.outputCount > 3) throw new InferenceError(`${name}: the qk output is not supported`);
  const k = ctx.input(1);
  const v = ctx.input(2);
  if (isUnknownRank(q.shape) || (k && isUnknownRank(k.shape)) || (v && isUnknownRank(v.shape))) {
    for (let i = 0; i < ctx.outputCount; i++) ctx.setOutput(i, { dtype: q.dtype, shape: [-2] });
    return;
  }
  const batch = q.shape[0] as Shape[number];
  const seq = q.shape[1] as Shape[number];
  let headSize: Shape[number] = -1;
  let vHead: Shape[number] = -1;
  let kvSeq: Shape[number] = -1;
  if (q.shape.length === 5) {
    if (k || v) throw new InferenceError(`${name}: packed QKV [B, S, N, 3, H] takes no key or value`);
    headSize = q.shape[4] as Shape[number];
    vHead = headSize;
    kvSeq = seq;
  } else if (q.shape.length === 3) {
    if (!k) throw new InferenceError(`${name}: key is required unless query is packed QKV`);
    const d = q.shape[2] as Shape[number];
    if (known(d) && d % heads !== 0) throw new InferenceError(`${name}: query width ${d} is not a multiple of ${heads} heads`);
    headSize = known(d) ? d / heads : -1;
    if (k.shape.length === 5) {
      if (v) throw new InferenceError(`${name}: packed KV [B, L, N, 2, H] takes no value`);
      kvSeq = k.shape[1] as Shape[number];
      vHead = k.shape[4] as Shape[number];
    } else if (k.shape.length === 4 || k.shape.length === 3) {
      if (!v || v.shape.length !== k.shape.length) throw new InferenceError(`${name}: value must have key's rank`);
      if (k.shape.length === 4) {
        kvSeq = k.shape[2] as Shape[number];
        vHead = v.shape[3] as Shape[number];
      } else {
        kvSeq = k.shape[1] as Shape[number];
        const dv = v.shape[2] as Shape[number];
        if (known(dv) && dv % heads !== 0) throw new InferenceError(`${name}: value width ${dv} is not a multiple of ${heads} heads`);
        vHead = known(dv) ? dv / heads : -1;
      }
    } else throw new InferenceError(`${name}: key must be 3-D, 4-D or 5-D, got rank ${k.shape.length}`);
  } else throw new InferenceError(`${name}: query must be 3-D or 5-D, got rank ${q.shape.length}`);
  ctx.setOutput(0, { dtype: q.dtype, shape: [batch, seq, known(vHead) ? vHead * heads : -1] });
  const past = ctx.input(6);
  const pastSeq = past ? (isUnknownRank(past.shape) ? -1 : (past.shape[2] as Shape[number])) : 0;
  const total: Shape[number] = known(pastSeq) && known(kvSeq) ? pastSeq + kvSeq : -1;
  if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: q.dtype, shape: [batch, heads, total, headSize] });
  if (ctx.outputCount > 2) ctx.setOutput(2, { dtype: q.dtype, shape: [batch, heads, total, vHead] });
}

export const multiHeadAttentionOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'MultiHeadAttention',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [
      param.required('query', 'T'),
      param.optional('key', 'T'),
      param.optional('value', 'T'),
      param.optional('bias', 'T'),
      param.optional('key_padding_mask', 'M'),
      param.optional('attention_bias', 'T'),
      param.optional('past_key', 'T'),
      param.optional('past_value', 'T'),
      param.optional('past_sequence_length', 'M'),
      param.optional('cache_indirection', 'M'),
    ],
    outputs: [
      param.required('output', 'T'),
      param.optional('present_key', 'T'),
      param.optional('present_value', 'T'),
      param.optional('qk', 'QK'),
    ],
    attributes: [
      { name: 'num_heads', kind: 'int', required: true },
      { name: 'mask_filter_value', kind: 'float', default: { kind: 'float', value: -10000 } },
      { name: 'scale', kind: 'float', default: { kind: 'float', value: 0 } },
      { name: 'unidirectional', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T', allowed: ['float32', 'float16', 'bfloat16'] },
      { name: 'M', allowed: ['int32'] },
      { name: 'QK', allowed: ['float32', 'float16'] },
    ],
    infer: inferMultiHeadAttention,
  }),
];
