/**
 * LinearAttention (opset 27): recurrent linear attention over packed [B, T, H*D] inputs with a
 * (B, H_kv, d_k, d_v) state and the linear / gated / delta / gated_delta update rules.
 */
import { type OpDefinitionV1, type Shape, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const linearAttentionOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'LinearAttention',
    sinceVersion: 27,
    inputs: [
      param.required('query', 'T'),
      param.required('key', 'T'),
      param.required('value', 'T'),
      param.optional('past_state', 'T'),
      param.optional('decay', 'T'),
      param.optional('beta', 'T'),
    ],
    outputs: [param.required('output', 'T'), param.optional('present_state', 'T')],
    attributes: [
      { name: 'kv_num_heads', kind: 'int', required: true },
      { name: 'q_num_heads', kind: 'int', required: true },
      { name: 'scale', kind: 'float' },
      { name: 'update_rule', kind: 'string', default: { kind: 'string', value: 'gated_delta' } },
    ],
    typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
    infer(ctx) {
      const q = inputInfo(ctx, 0);
      const k = inputInfo(ctx, 1);
      const v = inputInfo(ctx, 2);
      const qHeads = ctx.attrs.int('q_num_heads');
      const kvHeads = ctx.attrs.int('kv_num_heads');
      if (isUnknownRank(q.shape) || isUnknownRank(k.shape) || isUnknownRank(v.shape)) {
        ctx.setOutput(0, { dtype: q.dtype, shape: [-2] });
        if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: q.dtype, shape: [-2] });
        return;
      }
      const per = (d: Shape[number], n: number): Shape[number] => (typeof d === 'number' && d >= 0 ? d / n : -1);
      const dv = per(v.shape[2] as Shape[number], kvHeads);
      const dk = per(k.shape[2] as Shape[number], kvHeads);
      ctx.setOutput(0, {
        dtype: q.dtype,
        shape: [q.shape[0] as Shape[number], q.shape[1] as Shape[number], typeof dv === 'number' && dv >= 0 ? dv * qHeads : -1],
      });
      if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: q.dtype, shape: [q.shape[0] as Shape[number], kvHeads, dk, dv] });
    },
  }),
];
