/** com.microsoft BiasSplitGelu: (X + bias) split in half on the last axis; left · GELU(right). */
import type { KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';
import { erf } from '@tsge/ops/kernel-support';

export const biasSplitGeluKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'BiasSplitGelu',
    domain: 'com.microsoft',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const biasT = requireTensor(ctx, 1);
      if (x.dims.length !== 3) throw kernelError(ctx, `X must be 3-D [N, S, D], got [${x.dims}]`);
      const [n, s, d] = x.dims as [number, number, number];
      if (d % 2 !== 0) throw kernelError(ctx, `the hidden size ${d} must be even`);
      if (biasT.data.length !== d) throw kernelError(ctx, `bias must hold ${d} values, got [${biasT.dims}]`);
      const xs = readFloats(x);
      const bias = readFloats(biasT);
      const half = d / 2;
      const out = floatOutput(ctx, 0, [n, s, half], x.type);
      const rows = n * s;
      for (let r = 0; r < rows; r++)
        for (let i = 0; i < half; i++) {
          const left = (xs[r * d + i] as number) + (bias[i] as number);
          const right = (xs[r * d + half + i] as number) + (bias[half + i] as number);
          out.data[r * half + i] = left * 0.5 * right * (1 + erf(right / Math.SQRT2));
        }
      out.commit();
    },
  }),
];
