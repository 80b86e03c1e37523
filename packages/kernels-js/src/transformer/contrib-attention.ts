/**
 * com.microsoft Attention reference kernel: Q/K/V = input · weights (+ bias) split per head, the
 * past state [2, B, N, P, H] prepended to K and V (present is their concatenation), then the shared
 * attention step with mask_index, attention_bias and unidirectional (causal) masking.
 */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';
import { attend, maskingOf } from './contrib-attention-core.js';

function compute(ctx: KernelContextV1): void {
  const input = requireTensor(ctx, 0);
  const weights = requireTensor(ctx, 1);
  const heads = ctx.attrs.int('num_heads', 0);
  if (heads <= 0) throw kernelError(ctx, 'num_heads must be positive');
  if (ctx.attrs.int('do_rotary', 0) !== 0 || ctx.attrs.int('past_present_share_buffer', 0) !== 0 || hasInput(ctx, 6))
    throw kernelError(ctx, 'do_rotary, past_present_share_buffer and past_sequence_length are not supported');
  if (input.dims.length !== 3) throw kernelError(ctx, `input must be [batch, sequence, input_hidden], got [${input.dims}]`);
  const [batch, seq, inHidden] = input.dims as [number, number, number];
  if (weights.dims.length !== 2 || weights.dims[0] !== inHidden)
    throw kernelError(ctx, `weights must be [${inHidden}, q + k + v hidden], got [${weights.dims}]`);
  const width = weights.dims[1] as number;
  const sizes = ctx.attrs.ints('qkv_hidden_sizes', []);
  const [qh, kh, vh] = sizes.length === 3 ? (sizes as [number, number, number]) : [width / 3, width / 3, width / 3];
  if (qh !== kh || qh + kh + vh !== width || qh % heads !== 0 || vh % heads !== 0 || !Number.isInteger(qh))
    throw kernelError(ctx, `weights width ${width} does not split into Q/K/V hidden sizes [${sizes}] over ${heads} heads`);
  const H = qh / heads;
  const Hv = vh / heads;
  const bias = hasInput(ctx, 2) ? readFloats(requireTensor(ctx, 2)) : undefined;
  if (bias && bias.length !== width) throw kernelError(ctx, `bias must hold ${width} values`);
  const pastT = hasInput(ctx, 4) ? requireTensor(ctx, 4) : undefined;
  const past = pastT ? (pastT.dims[3] as number) : 0;
  if (pastT) {
    const want = [2, batch, heads, past, H].join();
    if (pastT.dims.length !== 5 || pastT.dims.join() !== want || Hv !== H)
      throw kernelError(ctx, `past must be [2, ${batch}, ${heads}, past, ${H}] with equal Q/K/V sizes, got [${pastT.dims}]`);
  }
  const total = past + seq;
  // projection [B·S, width] in float64
  const x = readFloats(input);
  const w = readFloats(weights);
  const proj = new Float64Array(batch * seq * width);
  for (let r = 0; r < batch * seq; r++)
    for (let c = 0; c < width; c++) {
      let acc = bias ? (bias[c] as number) : 0;
      for (let i = 0; i < inHidden; i++) acc += (x[r * inHidden + i] as number) * (w[i * width + c] as number);
      proj[r * width + c] = acc;
    }
  const q = new Float64Array(batch * heads * seq * H);
  const k = new Float64Array(batch * heads * total * H);
  const v = new Float64Array(batch * heads * total * Hv);
  const pastData = pastT ? readFloats(pastT) : undefined;
  const half = batch * heads * past * H;
  for (let b = 0; b < batch; b++)
    for (let n = 0; n < heads; n++) {
      const bn = b * heads + n;
      if (pastData)
        for (let i = 0; i < past * H; i++) {
          k[bn * total * H + i] = pastData[bn * past * H + i] as number;
          v[bn * total * Hv + i] = pastData[half + bn * past * H + i] as number;
        }
      for (let s = 0; s < seq; s++) {
        const row = (b * seq + s) * width;
        for (let d = 0; d < H; d++) {
          q[(bn * seq + s) * H + d] = proj[row + n * H + d] as number;
          k[(bn * total + past + s) * H + d] = proj[row + qh + n * H + d] as number;
        }
        for (let d = 0; d < Hv; d++) v[(bn * total + past + s) * Hv + d] = proj[row + qh + kh + n * Hv + d] as number;
      }
    }
  const masking = maskingOf(ctx, { batch, heads, seq, total, headSize: H }, { maskInput: 3, biasInput: 5, allowStart: true });
  const out = floatOutput(ctx, 0, [batch, seq, vh], input.type);
  attend({ batch, heads, seq, total, past, headSize: H, vHeadSize: Hv, q, k, v }, masking, out.data);
  out.commit();
  if (ctx.outputCount > 1) {
    const present = floatOutput(ctx, 1, [2, batch, heads, total, H], input.type);
    present.data.set(k);
    present.data.set(v, k.length);
    present.commit();
  }
}

export const contribAttentionKernels: readonly KernelV1[] = [defineKernel({ opType: 'Attention', domain: 'com.microsoft', compute })];
