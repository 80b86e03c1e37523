/**
 * CausalConvWithState (opset 27): depthwise causal 1-D convolution that left-pads each channel
 * with past_state (or zeros), with optional SiLU, returning the last k-1 positions as state.
 */
import type { KernelV1 } from '@tsge/metadef';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

export const causalConvKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'CausalConvWithState',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const w = requireTensor(ctx, 1);
      if (x.dims.length !== 3 || w.dims.length !== 3) throw kernelError(ctx, 'input and weight must be 3-D');
      const [batch, channels, length] = x.dims as [number, number, number];
      const k = w.dims[2] as number;
      if (w.dims[0] !== channels || w.dims[1] !== 1 || k < 1) throw kernelError(ctx, `weight must be [${channels}, 1, k], got [${w.dims}]`);
      const activation = ctx.attrs.string('activation', 'none').toLowerCase();
      if (!['none', 'silu', 'swish'].includes(activation)) throw kernelError(ctx, `unknown activation ${activation}`);
      const silu = activation !== 'none';
      const xs = readFloats(x);
      const ws = readFloats(w);
      const bias = hasInput(ctx, 2) ? readFloats(requireTensor(ctx, 2)) : undefined;
      const past = hasInput(ctx, 3) ? readFloats(requireTensor(ctx, 3)) : undefined;
      const carry = k - 1;
      if (past && past.length !== batch * channels * carry) throw kernelError(ctx, `past_state must be [${batch}, ${channels}, ${carry}]`);
      const out = floatOutput(ctx, 0, x.dims, x.type);
      const seq = new Float64Array(carry + length);
      const state = new Float64Array(batch * channels * carry);
      for (let b = 0; b < batch; b++)
        for (let c = 0; c < channels; c++) {
          const row = b * channels + c;
          for (let i = 0; i < carry; i++) seq[i] = past ? (past[row * carry + i] as number) : 0;
          for (let i = 0; i < length; i++) seq[carry + i] = xs[row * length + i] as number;
          for (let t = 0; t < length; t++) {
            let acc = bias ? (bias[c] as number) : 0;
            for (let j = 0; j < k; j++) acc += (ws[c * k + j] as number) * (seq[t + j] as number);
            out.data[row * length + t] = silu ? acc / (1 + Math.exp(-acc)) : acc;
          }
          for (let i = 0; i < carry; i++) state[row * carry + i] = seq[length + i] as number;
        }
      out.commit();
      if (ctx.outputCount > 1) {
        const present = floatOutput(ctx, 1, [batch, channels, carry], x.type);
        present.data.set(state);
        present.commit();
      }
    },
  }),
];
