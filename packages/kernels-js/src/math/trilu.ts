/** Trilu: keep the upper or lower triangle of the last two dims, offset by k. */
import { type KernelV1, toNumberArray } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

type Storage = { [index: number]: unknown };

export const triluKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'Trilu',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const kTensor = ctx.tensor(1);
      const k = kTensor && kTensor.data.length > 0 ? toNumberArray(kTensor)[0]! : 0;
      const upper = ctx.attrs.int('upper', 1) !== 0;
      const rank = x.dims.length;
      if (rank < 2) throw kernelError(ctx, 'input rank must be ≥ 2');
      const rows = x.dims[rank - 2]!;
      const cols = x.dims[rank - 1]!;
      const out = ctx.output(0, x.dims, x.type);
      const src = x.data as Storage;
      const dst = out.data as Storage;
      const zero: unknown = x.type === 'string' ? '' : x.type === 'int64' || x.type === 'uint64' ? 0n : 0;
      const total = x.data.length;
      for (let base = 0; base < total; base += rows * cols) {
        for (let i = 0; i < rows; i++) {
          for (let j = 0; j < cols; j++) {
            const p = base + i * cols + j;
            const keep = upper ? j - i >= k : j - i <= k;
            dst[p] = keep ? src[p] : zero;
          }
        }
      }
    },
  }),
];
