/** Where: broadcasting select between X and Y by a bool condition, for every dtype. */
import type { OpDefinitionV1 } from '@tsge/metadef';
import { inferBroadcast, requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { ALL_TYPES } from './op-types.js';

export const whereOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Where',
    sinceVersion: 16,
    inputs: [param.required('condition', 'B'), param.required('X', 'T'), param.required('Y', 'T')],
    outputs: [param.required('output', 'T')],
    typeConstraints: [
      { name: 'B', allowed: ['bool'] },
      { name: 'T', allowed: ALL_TYPES },
    ],
    infer: (ctx) => inferBroadcast(ctx, requireInput(ctx, 1).dtype),
  }),
];
