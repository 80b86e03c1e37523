/** BitShift, BitwiseAnd/Or/Xor (broadcasting) and BitwiseNot on integer tensors. */
import type { DataType, KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { type BinaryImpl, computeBinary } from '../common/math-binary.js';
import { kernelError, requireTensor } from '../common/math-values.js';
import { inferBroadcast, inferSameAsInput } from '../common/infer-helpers.js';
import { defineKernel, defineOp, param } from '../define.js';
import { INTEGERS } from './op-types.js';

const UNSIGNED: readonly DataType[] = ['uint8', 'uint16', 'uint32', 'uint64'];

const IMPLS: Readonly<Record<string, BinaryImpl>> = {
  BitwiseAnd: { number: (a, b) => a & b, bigint: (a, b) => a & b },
  BitwiseOr: { number: (a, b) => a | b, bigint: (a, b) => a | b },
  BitwiseXor: { number: (a, b) => a ^ b, bigint: (a, b) => a ^ b },
};
// results are stored into the input's typed array, which wraps them to its width
const shiftLeft: BinaryImpl = {
  number: (a, b) => (b >= 32 ? 0 : a * 2 ** b),
  bigint: (a, b) => (b >= 64n ? 0n : BigInt.asUintN(64, a << b)),
};
const shiftRight: BinaryImpl = { number: (a, b) => (b >= 32 ? 0 : Math.floor(a / 2 ** b)), bigint: (a, b) => (b >= 64n ? 0n : a >> b) };

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

export const bitwiseKernels: readonly KernelV1[] = [
  ...Object.entries(IMPLS).map(([opType, impl]) => defineKernel({ opType, compute: (ctx) => computeBinary(ctx, impl) })),
  defineKernel({
    opType: 'BitwiseNot',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const out = ctx.output(0, x.dims, x.type);
      if (x.type === 'int64' || x.type === 'uint64') {
        const src = x.data as BigInt64Array;
        const dst = out.data as BigInt64Array;
        for (let i = 0; i < src.length; i++) dst[i] = ~src[i]!;
      } else {
        const src = x.data as Int32Array;
        const dst = out.data as Int32Array;
        for (let i = 0; i < src.length; i++) dst[i] = ~src[i]!;
      }
    },
  }),
  defineKernel({
    opType: 'BitShift',
    compute: (ctx) => {
      const direction = ctx.attrs.string('direction');
      if (direction !== 'LEFT' && direction !== 'RIGHT') throw kernelError(ctx, `direction must be LEFT or RIGHT, got ${direction}`);
      computeBinary(ctx, direction === 'LEFT' ? shiftLeft : shiftRight);
    },
  }),
];
