/** And, Or, Xor (broadcasting) and Not on bool tensors. */
import type { KernelV1 } from '@tsge/metadef';
import { computeBinary } from '../common/math-binary.js';
import { requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { logicalIMPLS as IMPLS } from '@tsge/ops/kernel-support';

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
