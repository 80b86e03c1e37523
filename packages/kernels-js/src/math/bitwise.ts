/** BitShift, BitwiseAnd/Or/Xor (broadcasting) and BitwiseNot on integer tensors. */
import type { KernelV1 } from '@tsge/metadef';
import { type BinaryImpl, bitwiseIMPLS as IMPLS } from '@tsge/ops/kernel-support';
import { computeBinary } from '../common/math-binary.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
// results are stored into the input's typed array, which wraps them to its width
const shiftLeft: BinaryImpl = {
  number: (a, b) => (b >= 32 ? 0 : a * 2 ** b),
  bigint: (a, b) => (b >= 64n ? 0n : BigInt.asUintN(64, a << b)),
};
const shiftRight: BinaryImpl = { number: (a, b) => (b >= 32 ? 0 : Math.floor(a / 2 ** b)), bigint: (a, b) => (b >= 64n ? 0n : a >> b) };

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
