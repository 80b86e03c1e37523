/**
 * com.microsoft EmbedLayerNormalization (BERT): word + position (+ segment) embeddings summed and
 * layer-normalised; mask_index is the per-batch count of mask ones (the right-padded key length).
 * mask_index_type only tells onnxruntime's shape inference whether output 1 exists; mask_index is
 * written whenever the node has that output, as onnxruntime's kernel does.
 */
import { type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const embedLayerNormalizationOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'EmbedLayerNormalization',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [
      param.required('input_ids', 'T1'),
      param.optional('segment_ids', 'T1'),
      param.required('word_embedding', 'T'),
      param.required('position_embedding', 'T'),
      param.optional('segment_embedding', 'T'),
      param.optional('gamma', 'T'),
      param.optional('beta', 'T'),
      param.optional('mask', 'T1'),
      param.optional('position_ids', 'T1'),
    ],
    outputs: [param.required('output', 'T'), param.optional('mask_index', 'T1'), param.optional('embedding_sum', 'T')],
    attributes: [
      { name: 'epsilon', kind: 'float', default: { kind: 'float', value: 1e-12 } },
      { name: 'mask_index_type', kind: 'int', default: { kind: 'int', value: 1 } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: ['int32'] },
      { name: 'T', allowed: ['float32', 'float16'] },
    ],
    infer(ctx) {
      const ids = inputInfo(ctx, 0);
      const word = inputInfo(ctx, 2);
      if (!isUnknownRank(ids.shape) && ids.shape.length !== 2)
        throw new InferenceError(`EmbedLayerNormalization ${ctx.nodeName}: input_ids must be 2-D [batch, sequence]`);
      if (!isUnknownRank(word.shape) && word.shape.length !== 2)
        throw new InferenceError(`EmbedLayerNormalization ${ctx.nodeName}: word_embedding must be 2-D [vocab, hidden]`);
      if (!ctx.input(5) || !ctx.input(6)) throw new InferenceError(`EmbedLayerNormalization ${ctx.nodeName}: gamma and beta are required`);
      if (!ctx.input(1) !== !ctx.input(4))
        throw new InferenceError(`EmbedLayerNormalization ${ctx.nodeName}: segment_ids and segment_embedding go together`);
      const batch: Shape[number] = isUnknownRank(ids.shape) ? -1 : (ids.shape[0] as Shape[number]);
      const seq: Shape[number] = isUnknownRank(ids.shape) ? -1 : (ids.shape[1] as Shape[number]);
      const hidden: Shape[number] = isUnknownRank(word.shape) ? -1 : (word.shape[1] as Shape[number]);
      ctx.setOutput(0, { dtype: word.dtype, shape: [batch, seq, hidden] });
      if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: 'int32', shape: [batch] });
      if (ctx.outputCount > 2) ctx.setOutput(2, { dtype: word.dtype, shape: [batch, seq, hidden] });
    },
  }),
];
