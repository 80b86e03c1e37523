/** Elementwise activations (ONNX latest): one hand-written loop per op keeps each hot loop monomorphic. */
import type { KernelV1 } from '@tsge/metadef';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { ACTIVATIONS } from '@tsge/ops/kernel-support';

export const activationKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'Relu',
    inPlace: [[0, 0]],
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const data = x.data;
      if (data instanceof BigInt64Array) {
        const y = ctx.output(0, x.dims, x.type).data as BigInt64Array;
        for (let i = 0; i < data.length; i++) {
          const v = data[i] as bigint;
          y[i] = v > 0n ? v : 0n;
        }
        return;
      }
      if (x.type === 'int8' || x.type === 'int16' || x.type === 'int32') {
        const src = data as Int8Array | Int16Array | Int32Array;
        const y = ctx.output(0, x.dims, x.type).data as Int8Array | Int16Array | Int32Array;
        for (let i = 0; i < src.length; i++) {
          const v = src[i] as number;
          y[i] = Math.max(v, 0);
        }
        return;
      }
      const xs = readFloats(x);
      const out = floatOutput(ctx, 0, x.dims, x.type);
      const y = out.data;
      for (let i = 0; i < xs.length; i++) {
        const v = xs[i] as number;
        // keeps NaN (v > 0 is false for NaN, so test the negative side)
        y[i] = Math.max(v, 0);
      }
      out.commit();
    },
  }),
  ...ACTIVATIONS.map((act) =>
    defineKernel({
      opType: act.type,
      inPlace: [[0, 0]],
      compute(ctx) {
        const x = requireTensor(ctx, 0);
        const xs = readFloats(x);
        const out = floatOutput(ctx, 0, x.dims, x.type);
        act.loop(xs, out.data, ctx.attrs);
        out.commit();
      },
    }),
  ),
];
