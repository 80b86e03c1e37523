/** Equal, Less, LessOrEqual, Greater, GreaterOrEqual: broadcasting comparisons giving bool. */
// Each comparison has its own row loop so its call site stays monomorphic.
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { broadcastOrThrow, computeBinary } from '../common/math-binary.js';
import { planBroadcastRows } from '../common/math-broadcast-rows.js';
import { requireTensorOf } from '../common/math-values.js';
import { requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { comparisonIMPLS as IMPLS } from '@tsge/ops/kernel-support';

/** Equal on strings: element-wise identity of the broadcast operands. */
function equalStrings(ctx: KernelContextV1): void {
  const a = requireTensor(ctx, 0);
  const b = requireTensorOf(ctx, 1, ['string']);
  const dims = broadcastOrThrow(ctx, [a, b]);
  const plan = planBroadcastRows([a.dims, b.dims], dims);
  const out = ctx.output(0, dims, 'bool').data as Uint8Array;
  const A = a.data as string[];
  const B = b.data as string[];
  const n = plan.rowLength;
  const [sa, sb] = plan.steps as [number, number];
  for (let r = 0; r < plan.rowCount; r++) {
    let ia = plan.offsets[0]![r]!;
    let ib = plan.offsets[1]![r]!;
    for (let k = 0; k < n; k++, ia += sa, ib += sb) out[r * n + k] = A[ia] === B[ib] ? 1 : 0;
  }
}

export const comparisonKernels: readonly KernelV1[] = Object.entries(IMPLS).map(([opType, impl]) =>
  defineKernel({
    opType,
    compute: (ctx) => {
      if (opType === 'Equal' && ctx.tensor(0)?.type === 'string') equalStrings(ctx);
      else computeBinary(ctx, impl, 'bool');
    },
  }),
);
