/** PRelu: y = x < 0 ? slope * x : x, slope broadcast unidirectionally to x. */
import type { KernelV1 } from '@tsge/metadef';
import { broadcastDims, broadcastIndexMap } from '../common/broadcast.js';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

export const preluKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'PRelu',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const slope = requireTensor(ctx, 1);
      let dims: number[];
      try {
        dims = broadcastDims(x.dims, slope.dims);
      } catch {
        throw kernelError(ctx, `slope [${slope.dims}] does not broadcast to [${x.dims}]`);
      }
      const xMap = broadcastIndexMap(x.dims, dims);
      const sMap = broadcastIndexMap(slope.dims, dims);
      if (x.data instanceof BigInt64Array || x.data instanceof BigUint64Array) {
        const xs = x.data;
        const ss = slope.data as BigInt64Array;
        const y = ctx.output(0, dims, x.type).data as BigInt64Array;
        for (let i = 0; i < y.length; i++) {
          const v = xs[xMap[i] as number] as bigint;
          y[i] = v < 0n ? v * (ss[sMap[i] as number] as bigint) : v;
        }
        return;
      }
      if (x.type === 'int32' || x.type === 'uint32') {
        const xs = x.data as Int32Array;
        const ss = slope.data as Int32Array;
        const y = ctx.output(0, dims, x.type).data as Int32Array;
        for (let i = 0; i < y.length; i++) {
          const v = xs[xMap[i] as number] as number;
          y[i] = v < 0 ? Math.imul(v, ss[sMap[i] as number] as number) : v;
        }
        return;
      }
      const xs = readFloats(x);
      const ss = readFloats(slope);
      const out = floatOutput(ctx, 0, dims, x.type);
      const y = out.data;
      for (let i = 0; i < y.length; i++) {
        const v = xs[xMap[i] as number] as number;
        y[i] = v < 0 ? v * (ss[sMap[i] as number] as number) : v;
      }
      out.commit();
    },
  }),
];
