/** And, Or, Xor (broadcasting) and Not on bool tensors. */
import type { OpDefinitionV1 } from '@tsge/metadef';
import type { BinaryImpl } from '../common/math-binary.js';
import { inferSameAsInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { inferLegacyBroadcast } from './binary-arithmetic.js';

export const IMPLS: Readonly<Record<string, BinaryImpl>> = {
  And: { number: (a, b) => a & b },
  Or: { number: (a, b) => a | b },
  Xor: { number: (a, b) => a ^ b },
};

export const logicalOps: readonly OpDefinitionV1[] = [
  ...Object.keys(IMPLS).map((type) =>
    defineOp({
      type,
      sinceVersion: 7,
      inputs: [param.required('A', 'T'), param.required('B', 'T')],
      outputs: [param.required('C', 'T1')],
      typeConstraints: [
        { name: 'T', allowed: ['bool'] },
        { name: 'T1', allowed: ['bool'] },
      ],
      infer: (ctx) => inferLegacyBroadcast(ctx, 'bool'),
    }),
  ),
  defineOp({
    type: 'Not',
    sinceVersion: 1,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T')],
    typeConstraints: [{ name: 'T', allowed: ['bool'] }],
    infer: inferSameAsInput,
  }),
];
