/** Dropout: identity with an all-true mask in inference; seeded Bernoulli masking in training. */
import type { KernelV1 } from '@tsge/metadef';
import { numpyRandomSample } from '../common/nn-mt19937.js';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

export const dropoutKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'Dropout',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const xs = readFloats(x);
      const ratio = hasInput(ctx, 1) ? (readFloats(requireTensor(ctx, 1))[0] ?? 0.5) : 0.5;
      const training = hasInput(ctx, 2) ? (requireTensor(ctx, 2).data[0] as number) !== 0 : false;
      const out = floatOutput(ctx, 0, x.dims, x.type);
      const mask = ctx.outputCount > 1 ? (ctx.output(1, x.dims, 'bool').data as Uint8Array) : undefined;
      if (!training || ratio === 0) {
        out.data.set(xs);
        mask?.fill(1);
      } else {
        // numpy-compatible stream: a seeded model reproduces the ONNX reference mask
        const random = numpyRandomSample(ctx.attrs.has('seed') ? ctx.attrs.int('seed') : (Math.random() * 2 ** 32) >>> 0);
        const keep = 1 / (1 - ratio);
        for (let i = 0; i < xs.length; i++) {
          const kept = random() >= ratio;
          out.data[i] = kept ? (xs[i] as number) * keep : 0;
          if (mask) mask[i] = kept ? 1 : 0;
        }
      }
      out.commit();
    },
  }),
];
