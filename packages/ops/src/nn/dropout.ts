/** Dropout: identity with an all-true mask in inference; seeded Bernoulli masking in training. */
import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { numpyRandomSample } from '../common/nn-mt19937.js';
import { NN_FLOAT_TYPES, floatOutput, hasInput, inputInfo, readFloats, requireTensor } from '../common/nn-float-io.js';
import { defineKernel, defineOp, param } from '../define.js';

export const dropoutOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Dropout',
    sinceVersion: 22,
    inputs: [param.required('data', 'T'), param.optional('ratio', 'T1'), param.optional('training_mode', 'T2')],
    outputs: [param.required('output', 'T'), param.optional('mask', 'T2')],
    attributes: [{ name: 'seed', kind: 'int' }],
    typeConstraints: [
      { name: 'T', allowed: NN_FLOAT_TYPES },
      { name: 'T1', allowed: NN_FLOAT_TYPES },
      { name: 'T2', allowed: ['bool'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
      if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: 'bool', shape: x.shape });
    },
  }),
];

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
