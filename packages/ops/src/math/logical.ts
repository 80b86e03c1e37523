/** And, Or, Xor (broadcasting) and Not on bool tensors. */
import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { type BinaryImpl, computeBinary } from '../common/math-binary.js';
import { requireTensor } from '../common/math-values.js';
import { inferSameAsInput } from '../common/infer-helpers.js';
import { defineKernel, defineOp, param } from '../define.js';
import { inferLegacyBroadcast } from './binary-arithmetic.js';

const IMPLS: Readonly<Record<string, BinaryImpl>> = {
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

export const logicalKernels: readonly KernelV1[] = [
  ...Object.entries(IMPLS).map(([opType, impl]) => defineKernel({ opType, compute: (ctx) => computeBinary(ctx, impl, 'bool') })),
  defineKernel({
    opType: 'Not',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const src = x.data as Uint8Array;
      const out = ctx.output(0, x.dims, 'bool').data as Uint8Array;
      for (let i = 0; i < src.length; i++) out[i] = src[i] ? 0 : 1;
    },
  }),
];
