/** Where: broadcasting select between X and Y by a bool condition, for every dtype. */
import type { KernelV1 } from '@tsge/metadef';
import { broadcastOrThrow } from '../common/math-binary.js';
import { planBroadcastRows } from '../common/math-broadcast-rows.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

type Storage = { [index: number]: unknown };

export const whereKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'Where',
    compute: (ctx) => {
      const c = requireTensor(ctx, 0);
      const x = requireTensor(ctx, 1);
      const y = requireTensor(ctx, 2);
      if (x.type !== y.type) throw kernelError(ctx, `X is ${x.type} but Y is ${y.type}`);
      if (c.type !== 'bool') throw kernelError(ctx, `condition is ${c.type}, not bool`);
      const dims = broadcastOrThrow(ctx, [c, x, y]);
      const plan = planBroadcastRows([c.dims, x.dims, y.dims], dims);
      const out = ctx.output(0, dims, x.type).data as Storage;
      const C = c.data as Uint8Array;
      const X = x.data as Storage;
      const Y = y.data as Storage;
      const [sc, sx, sy] = plan.steps as [number, number, number];
      const n = plan.rowLength;
      for (let r = 0; r < plan.rowCount; r++) {
        let ic = plan.offsets[0]![r]!;
        let ix = plan.offsets[1]![r]!;
        let iy = plan.offsets[2]![r]!;
        const o = r * n;
        for (let k = 0; k < n; k++, ic += sc, ix += sx, iy += sy) out[o + k] = C[ic] ? X[ix] : Y[iy];
      }
    },
  }),
];
