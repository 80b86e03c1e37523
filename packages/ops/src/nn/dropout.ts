/** Dropout: identity with an all-true mask in inference; seeded Bernoulli masking in training. */
import type { OpDefinitionV1 } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

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
