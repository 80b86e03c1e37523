/**
 * FlexAttention (ai.onnx.preview): scaled dot-product attention whose scores and probabilities
 * pass through optional `score_mod` / `prob_mod` subgraphs applied to the whole [B, H, L, S] tensor.
 */
import { type HostTensor, type KernelV1, createTensor, isHostTensor } from '@tsge/metadef';
import { floatOutput, readFloats, writeFloatsInto } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { PREVIEW_DOMAIN } from '@tsge/ops/kernel-support';

export const flexAttentionKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'FlexAttention',
    domain: PREVIEW_DOMAIN,
    compute(ctx) {
      const qT = requireTensor(ctx, 0);
      const kT = requireTensor(ctx, 1);
      const vT = requireTensor(ctx, 2);
      if (qT.dims.length !== 4 || kT.dims.length !== 4 || vT.dims.length !== 4)
        throw kernelError(ctx, 'Q, K and V must be 4-D [B, H, L, E]');
      const [batch, qHeads, len, dim] = qT.dims as [number, number, number, number];
      const kvHeads = kT.dims[1] as number;
      const keys = kT.dims[2] as number;
      const dv = vT.dims[3] as number;
      if (kT.dims[3] !== dim || vT.dims[2] !== keys || qHeads % kvHeads !== 0)
        throw kernelError(ctx, `incompatible Q [${qT.dims}], K [${kT.dims}], V [${vT.dims}]`);
      const ratio = qHeads / kvHeads;
      const scale = ctx.attrs.has('scale') ? ctx.attrs.float('scale') : 1 / Math.sqrt(dim);
      const q = readFloats(qT);
      const k = readFloats(kT);
      const v = readFloats(vT);
      const scoreDims = [batch, qHeads, len, keys];
      let scores: ArrayLike<number> = new Float64Array(batch * qHeads * len * keys);
      const raw = scores as Float64Array;
      for (let b = 0; b < batch; b++)
        for (let h = 0; h < qHeads; h++) {
          const kb = (b * kvHeads + Math.floor(h / ratio)) * keys * dim;
          for (let i = 0; i < len; i++) {
            const qo = ((b * qHeads + h) * len + i) * dim;
            for (let j = 0; j < keys; j++) {
              let dot = 0;
              for (let d = 0; d < dim; d++) dot += (q[qo + d] as number) * (k[kb + j * dim + d] as number);
              raw[((b * qHeads + h) * len + i) * keys + j] = dot * scale;
            }
          }
        }
      const applyMod = (name: string, values: ArrayLike<number>): ArrayLike<number> => {
        if (!ctx.attrs.graph(name)) return values;
        const input: HostTensor = createTensor(qT.type, scoreDims);
        writeFloatsInto(input, values);
        const [result] = ctx.runSubgraph(name, [input]);
        if (!isHostTensor(result) || result.data.length !== values.length)
          throw kernelError(ctx, `${name} must return a tensor of shape [${scoreDims}]`);
        return readFloats(result);
      };
      scores = applyMod('score_mod', scores);
      const probs = new Float64Array(scores.length);
      for (let r = 0; r < batch * qHeads * len; r++) {
        let max = Number.NEGATIVE_INFINITY;
        for (let j = 0; j < keys; j++) max = Math.max(max, scores[r * keys + j] as number);
        let sum = 0;
        for (let j = 0; j < keys; j++) {
          const e = Math.exp((scores[r * keys + j] as number) - max);
          probs[r * keys + j] = e;
          sum += e;
        }
        for (let j = 0; j < keys; j++) probs[r * keys + j] = (probs[r * keys + j] as number) / sum;
      }
      const finalProbs = applyMod('prob_mod', probs);
      const out = floatOutput(ctx, 0, [batch, qHeads, len, dv], qT.type);
      for (let b = 0; b < batch; b++)
        for (let h = 0; h < qHeads; h++) {
          const vb = (b * kvHeads + Math.floor(h / ratio)) * keys * dv;
          for (let i = 0; i < len; i++) {
            const r = (b * qHeads + h) * len + i;
            for (let d = 0; d < dv; d++) {
              let acc = 0;
              for (let j = 0; j < keys; j++) acc += (finalProbs[r * keys + j] as number) * (v[vb + j * dv + d] as number);
              out.data[r * dv + d] = acc;
            }
          }
        }
      out.commit();
    },
  }),
];
