/**
 * com.microsoft RotaryEmbedding: rotates the first rotary_embedding_dim features of each head of a
 * [B, S, hidden] or [B, N, S, H] input. position_ids is [B, S] (absolute positions) or [1] (an
 * offset added to each token's index); cos_cache/sin_cache are [max_position, rotary_dim / 2].
 * `scale` only scales caches onnxruntime would extend for sequences longer than the cache, which
 * neither onnxruntime's CPU kernel nor tsge does (such positions are rejected), so it has no effect.
 */
import { type OpDefinitionV1, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const contribRotaryEmbeddingOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'RotaryEmbedding',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [
      param.required('input', 'T'),
      param.required('position_ids', 'M'),
      param.required('cos_cache', 'T'),
      param.required('sin_cache', 'T'),
    ],
    outputs: [param.required('output', 'T')],
    attributes: [
      { name: 'scale', kind: 'float', default: { kind: 'float', value: 1 } },
      { name: 'interleaved', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'num_heads', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'rotary_embedding_dim', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'is_packed_batching', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T', allowed: ['float32', 'float16', 'bfloat16'] },
      { name: 'M', allowed: ['int64'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      if (!isUnknownRank(x.shape) && x.shape.length !== 3 && x.shape.length !== 4)
        throw new InferenceError(`RotaryEmbedding ${ctx.nodeName}: input must be 3-D or 4-D, got rank ${x.shape.length}`);
      if (ctx.attrs.int('rotary_embedding_dim', 0) > 0 && ctx.attrs.int('num_heads', 0) <= 0)
        throw new InferenceError(`RotaryEmbedding ${ctx.nodeName}: rotary_embedding_dim needs num_heads`);
      if (ctx.attrs.int('is_packed_batching', 0) !== 0)
        throw new InferenceError(`RotaryEmbedding ${ctx.nodeName}: is_packed_batching is not supported`);
      ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
    },
  }),
];
