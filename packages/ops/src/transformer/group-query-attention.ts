/**
 * com.microsoft GroupQueryAttention (onnxruntime contrib op): causal grouped-query attention over
 * BSH query/key/value (or one packed QKV input) with a BNSH KV cache whose per-batch valid length
 * comes from seqlens_k, optional rotary inside and a local (sliding) window. The present length is
 * max(total_sequence_length, past length), known only at run time.
 */
import { type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

const GQA_FLOATS = ['float32', 'float16', 'bfloat16'] as const;

export const groupQueryAttentionOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'GroupQueryAttention',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [
      param.required('query', 'T'),
      param.optional('key', 'T'),
      param.optional('value', 'T'),
      param.optional('past_key', 'T_CACHE'),
      param.optional('past_value', 'T_CACHE'),
      param.required('seqlens_k', 'M'),
      param.required('total_sequence_length', 'M'),
      param.optional('cos_cache', 'T'),
      param.optional('sin_cache', 'T'),
      param.optional('position_ids', 'P'),
      param.optional('attention_bias', 'T'),
      param.optional('head_sink', 'T'),
    ],
    outputs: [
      param.required('output', 'T'),
      param.optional('present_key', 'T_CACHE'),
      param.optional('present_value', 'T_CACHE'),
      param.optional('output_qk', 'T'),
    ],
    attributes: [
      { name: 'num_heads', kind: 'int' },
      { name: 'kv_num_heads', kind: 'int' },
      { name: 'scale', kind: 'float', default: { kind: 'float', value: 0 } },
      { name: 'softcap', kind: 'float', default: { kind: 'float', value: 0 } },
      { name: 'local_window_size', kind: 'int', default: { kind: 'int', value: -1 } },
      { name: 'do_rotary', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'rotary_interleaved', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'smooth_softmax', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'qk_output', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T', allowed: GQA_FLOATS },
      { name: 'T_CACHE', allowed: GQA_FLOATS },
      { name: 'M', allowed: ['int32'] },
      { name: 'P', allowed: ['int64'] },
    ],
    infer(ctx) {
      const q = inputInfo(ctx, 0);
      const numHeads = ctx.attrs.int('num_heads', 0);
      const kvHeads = ctx.attrs.int('kv_num_heads', 0);
      if (numHeads <= 0 || kvHeads <= 0 || numHeads % kvHeads !== 0)
        throw new InferenceError(
          `GroupQueryAttention ${ctx.nodeName}: num_heads (${numHeads}) must be a positive multiple of kv_num_heads (${kvHeads})`,
        );
      const packed = !ctx.input(1);
      if (packed !== !ctx.input(2))
        throw new InferenceError(`GroupQueryAttention ${ctx.nodeName}: key and value must both be given or both omitted (packed QKV)`);
      if (!isUnknownRank(q.shape) && q.shape.length !== 3)
        throw new InferenceError(`GroupQueryAttention ${ctx.nodeName}: query must be 3-D [batch, sequence, hidden]`);
      const batch: Shape[number] = isUnknownRank(q.shape) ? -1 : (q.shape[0] as Shape[number]);
      const seq: Shape[number] = isUnknownRank(q.shape) ? -1 : (q.shape[1] as Shape[number]);
      const width = isUnknownRank(q.shape) ? -1 : q.shape[2];
      let headSize: Shape[number] = -1;
      if (typeof width === 'number' && width >= 0) {
        const parts = packed ? numHeads + 2 * kvHeads : numHeads;
        if (width % parts !== 0)
          throw new InferenceError(`GroupQueryAttention ${ctx.nodeName}: query width ${width} is not a multiple of ${parts} heads`);
        headSize = width / parts;
      }
      const hidden: Shape[number] = typeof headSize === 'number' && headSize >= 0 ? headSize * numHeads : -1;
      ctx.setOutput(0, { dtype: q.dtype, shape: [batch, seq, hidden] });
      const cacheType = ctx.input(3)?.dtype ?? q.dtype;
      if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: cacheType, shape: [batch, kvHeads, -1, headSize] });
      if (ctx.outputCount > 2) ctx.setOutput(2, { dtype: cacheType, shape: [batch, kvHeads, -1, headSize] });
      if (ctx.outputCount > 3) ctx.setOutput(3, { dtype: q.dtype, shape: [batch, numHeads, seq, -1] });
    },
  }),
];
