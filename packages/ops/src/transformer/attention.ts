/**
 * ONNX Attention (opset 23/24): scaled dot-product attention over 3-D or 4-D Q/K/V with GQA/MQA,
 * KV cache (past/present), boolean or additive masks, causal masking, softcap and the optional
 * QK output. Scores for one query row are computed, masked and normalised in float64.
 */
import { type InferenceContextV1, type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';
import { attentionShapesProblem } from './attention-geometry.js';

function inferAttention(ctx: InferenceContextV1): void {
  const qi = inputInfo(ctx, 0);
  const ki = inputInfo(ctx, 1);
  const vi = inputInfo(ctx, 2);
  const unknown = isUnknownRank(qi.shape) || isUnknownRank(ki.shape) || isUnknownRank(vi.shape);
  if (unknown) {
    for (let i = 0; i < ctx.outputCount; i++) ctx.setOutput(i, { dtype: qi.dtype, shape: qi.shape });
    return;
  }
  const rank = qi.shape.length;
  const problem = attentionShapesProblem({
    q: qi.shape,
    k: ki.shape,
    v: vi.shape,
    mask: ctx.input(3)?.shape,
    pastKey: ctx.input(4)?.shape,
    pastValue: ctx.input(5)?.shape,
    qHeads3d: ctx.attrs.int('q_num_heads', 0),
    kvHeads3d: ctx.attrs.int('kv_num_heads', 0),
  });
  if (problem) throw new InferenceError(`Attention ${ctx.nodeName}: ${problem}`);
  const qHeads = rank === 4 ? qi.shape[1] : ctx.attrs.int('q_num_heads', 0);
  const kvHeads = rank === 4 ? ki.shape[1] : ctx.attrs.int('kv_num_heads', 0);
  if (rank === 3 && (!qHeads || !kvHeads))
    throw new InferenceError(`Attention ${ctx.nodeName}: 3-D inputs need q_num_heads and kv_num_heads`);
  const div = (d: Shape[number], n: Shape[number]): Shape[number] =>
    typeof d === 'number' && d >= 0 && typeof n === 'number' && n > 0 ? d / n : -1;
  const batch = qi.shape[0] as Shape[number];
  const qSeq = (rank === 4 ? qi.shape[2] : qi.shape[1]) as Shape[number];
  const kvSeq = (rank === 4 ? ki.shape[2] : ki.shape[1]) as Shape[number];
  const headSize = rank === 4 ? (ki.shape[3] as Shape[number]) : div(ki.shape[2] as Shape[number], kvHeads as Shape[number]);
  const vHead = rank === 4 ? (vi.shape[3] as Shape[number]) : div(vi.shape[2] as Shape[number], kvHeads as Shape[number]);
  const yShape: Shape =
    rank === 4
      ? [batch, qHeads as Shape[number], qSeq, vHead]
      : [batch, qSeq, typeof vHead === 'number' && vHead >= 0 && typeof qHeads === 'number' ? qHeads * vHead : -1];
  ctx.setOutput(0, { dtype: qi.dtype, shape: yShape });
  const pastK = ctx.input(4);
  const pastSeq = pastK && !isUnknownRank(pastK.shape) ? pastK.shape[2] : pastK ? -1 : 0;
  const total: Shape[number] =
    typeof pastSeq === 'number' && pastSeq >= 0 && typeof kvSeq === 'number' && kvSeq >= 0 ? pastSeq + kvSeq : -1;
  if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: ki.dtype, shape: [batch, kvHeads as Shape[number], total, headSize] });
  if (ctx.outputCount > 2) ctx.setOutput(2, { dtype: vi.dtype, shape: [batch, kvHeads as Shape[number], total, vHead] });
  if (ctx.outputCount > 3) ctx.setOutput(3, { dtype: qi.dtype, shape: [batch, qHeads as Shape[number], qSeq, total] });
}

export const attentionOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Attention',
    sinceVersion: 24,
    inputs: [
      param.required('Q', 'T1'),
      param.required('K', 'T1'),
      param.required('V', 'T2'),
      param.optional('attn_mask', 'U'),
      param.optional('past_key', 'T1'),
      param.optional('past_value', 'T2'),
      param.optional('nonpad_kv_seqlen', 'int64'),
    ],
    outputs: [
      param.required('Y', 'T1'),
      param.optional('present_key', 'T1'),
      param.optional('present_value', 'T2'),
      param.optional('qk_matmul_output', 'T1'),
    ],
    attributes: [
      { name: 'is_causal', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'kv_num_heads', kind: 'int' },
      { name: 'q_num_heads', kind: 'int' },
      { name: 'qk_matmul_output_mode', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'scale', kind: 'float' },
      { name: 'softcap', kind: 'float', default: { kind: 'float', value: 0 } },
      { name: 'softmax_precision', kind: 'int' },
    ],
    typeConstraints: [
      { name: 'T1', allowed: NN_FLOAT_TYPES },
      { name: 'T2', allowed: NN_FLOAT_TYPES },
      { name: 'U', allowed: [...NN_FLOAT_TYPES, 'bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'uint16', 'uint32', 'uint64'] },
    ],
    infer: inferAttention,
  }),
];
