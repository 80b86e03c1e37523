/**
 * LinearAttention (opset 27): recurrent linear attention over packed [B, T, H*D] inputs with a
 * (B, H_kv, d_k, d_v) state and the linear / gated / delta / gated_delta update rules.
 */
import type { KernelV1 } from '@tsge/metadef';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

const RULES = ['linear', 'gated', 'delta', 'gated_delta'] as const;

export const linearAttentionKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'LinearAttention',
    compute(ctx) {
      const qT = requireTensor(ctx, 0);
      const kT = requireTensor(ctx, 1);
      const vT = requireTensor(ctx, 2);
      if (qT.dims.length !== 3 || kT.dims.length !== 3 || vT.dims.length !== 3)
        throw kernelError(ctx, 'query, key and value must be 3-D [B, T, H*D]');
      const rule = ctx.attrs.string('update_rule', 'gated_delta') as (typeof RULES)[number];
      if (!RULES.includes(rule)) throw kernelError(ctx, `unknown update_rule ${rule}`);
      const qHeads = ctx.attrs.int('q_num_heads');
      const kvHeads = ctx.attrs.int('kv_num_heads');
      const [batch, steps] = qT.dims as [number, number];
      if (kvHeads <= 0 || qHeads % kvHeads !== 0)
        throw kernelError(ctx, `q_num_heads ${qHeads} must be a multiple of kv_num_heads ${kvHeads}`);
      const dk = (qT.dims[2] as number) / qHeads;
      const dv = (vT.dims[2] as number) / kvHeads;
      if (!Number.isInteger(dk) || !Number.isInteger(dv) || (kT.dims[2] as number) !== kvHeads * dk)
        throw kernelError(ctx, 'head sizes do not divide the packed dims');
      const gated = rule === 'gated' || rule === 'gated_delta';
      const delta = rule === 'delta' || rule === 'gated_delta';
      const decayT = gated && hasInput(ctx, 4) ? requireTensor(ctx, 4) : undefined;
      const betaT = delta && hasInput(ctx, 5) ? requireTensor(ctx, 5) : undefined;
      if (gated && !decayT) throw kernelError(ctx, `update_rule ${rule} needs the decay input`);
      if (delta && !betaT) throw kernelError(ctx, `update_rule ${rule} needs the beta input`);
      const q = readFloats(qT);
      const k = readFloats(kT);
      const v = readFloats(vT);
      const decay = decayT ? readFloats(decayT) : undefined;
      const decayWidth = decayT ? (decayT.dims[2] as number) : 0;
      const perChannelDecay = decayWidth === kvHeads * dk;
      const beta = betaT ? readFloats(betaT) : undefined;
      const betaWidth = betaT ? (betaT.dims[2] as number) : 0;
      const scale = ctx.attrs.has('scale') && ctx.attrs.float('scale') !== 0 ? ctx.attrs.float('scale') : 1 / Math.sqrt(dk);
      const stateSize = batch * kvHeads * dk * dv;
      const state = new Float64Array(stateSize);
      if (hasInput(ctx, 3)) {
        const past = readFloats(requireTensor(ctx, 3));
        if (past.length !== stateSize) throw kernelError(ctx, `past_state must be [${batch}, ${kvHeads}, ${dk}, ${dv}]`);
        state.set(past);
      }
      const out = floatOutput(ctx, 0, [batch, steps, qHeads * dv], qT.type);
      const ratio = qHeads / kvHeads;
      const recall = new Float64Array(dv);
      const gate = new Float64Array(dk);
      for (let b = 0; b < batch; b++)
        for (let t = 0; t < steps; t++) {
          const row = b * steps + t;
          for (let h = 0; h < kvHeads; h++) {
            const s = (b * kvHeads + h) * dk * dv;
            const ko = row * kvHeads * dk + h * dk;
            const vo = row * kvHeads * dv + h * dv;
            if (decay) {
              for (let i = 0; i < dk; i++)
                gate[i] = Math.exp(
                  perChannelDecay
                    ? (decay[row * decayWidth + h * dk + i] as number)
                    : (decay[row * decayWidth + (decayWidth === 1 ? 0 : h)] as number),
                );
              for (let i = 0; i < dk; i++) {
                const g = gate[i] as number;
                for (let j = 0; j < dv; j++) state[s + i * dv + j] = (state[s + i * dv + j] as number) * g;
              }
            }
            if (delta && beta) {
              const bt = beta[row * betaWidth + (betaWidth === 1 ? 0 : h)] as number;
              // S += β k ⊗ (v − Sᵀk), with S already decayed
              for (let j = 0; j < dv; j++) {
                let acc = 0;
                for (let i = 0; i < dk; i++) acc += (state[s + i * dv + j] as number) * (k[ko + i] as number);
                recall[j] = acc;
              }
              for (let i = 0; i < dk; i++) {
                const ki = bt * (k[ko + i] as number);
                for (let j = 0; j < dv; j++)
                  state[s + i * dv + j] = (state[s + i * dv + j] as number) + ki * ((v[vo + j] as number) - (recall[j] as number));
              }
            } else {
              for (let i = 0; i < dk; i++) {
                const ki = k[ko + i] as number;
                for (let j = 0; j < dv; j++) state[s + i * dv + j] = (state[s + i * dv + j] as number) + ki * (v[vo + j] as number);
              }
            }
          }
          for (let hq = 0; hq < qHeads; hq++) {
            const s = (b * kvHeads + Math.floor(hq / ratio)) * dk * dv;
            const qo = row * qHeads * dk + hq * dk;
            const oo = row * qHeads * dv + hq * dv;
            for (let j = 0; j < dv; j++) {
              let acc = 0;
              for (let i = 0; i < dk; i++) acc += (q[qo + i] as number) * (state[s + i * dv + j] as number);
              out.data[oo + j] = scale * acc;
            }
          }
        }
      out.commit();
      if (ctx.outputCount > 1) {
        const present = floatOutput(ctx, 1, [batch, kvHeads, dk, dv], qT.type);
        present.data.set(state);
        present.commit();
      }
    },
  }),
];
