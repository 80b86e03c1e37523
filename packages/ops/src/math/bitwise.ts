/** BitShift, BitwiseAnd/Or/Xor (broadcasting) and BitwiseNot on integer tensors. */
import type { DataType, OpDefinitionV1 } from '@tsge/metadef';
import type { BinaryImpl } from '../common/math-binary.js';
import { inferBroadcast, inferSameAsInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { INTEGERS } from './op-types.js';

const UNSIGNED: readonly DataType[] = ['uint8', 'uint16', 'uint32', 'uint64'];

export const IMPLS: Readonly<Record<string, BinaryImpl>> = {
  BitwiseAnd: { number: (a, b) => a & b, bigint: (a, b) => a & b },
  BitwiseOr: { number: (a, b) => a | b, bigint: (a, b) => a | b },
  BitwiseXor: { number: (a, b) => a ^ b, bigint: (a, b) => a ^ b },
};

export const bitwiseOps: readonly OpDefinitionV1[] = [
  ...Object.keys(IMPLS).map((type) =>
    defineOp({
      type,
      sinceVersion: 18,
      inputs: [param.required('A', 'T'), param.required('B', 'T')],
      outputs: [param.required('C', 'T')],
      typeConstraints: [{ name: 'T', allowed: INTEGERS }],
      infer: (ctx) => inferBroadcast(ctx),
    }),
  ),
  defineOp({
    type: 'BitwiseNot',
    sinceVersion: 18,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T')],
    typeConstraints: [{ name: 'T', allowed: INTEGERS }],
    infer: inferSameAsInput,
  }),
  defineOp({
    type: 'BitShift',
    sinceVersion: 11,
    inputs: [param.required('X', 'T'), param.required('Y', 'T')],
    outputs: [param.required('Z', 'T')],
    attributes: [{ name: 'direction', kind: 'string', required: true }],
    typeConstraints: [{ name: 'T', allowed: UNSIGNED }],
    infer: (ctx) => inferBroadcast(ctx),
  }),
];
