/** The shared engine of broadcasting binary elementwise kernels (arithmetic, comparison, bitwise). */
import { type DataType, type HostTensor, type KernelContextV1, isBigIntType } from '@tsge/metadef';
import { type BroadcastRows, broadcastStaticDims, planBroadcastRows } from './math-broadcast-rows.js';
import type { NumberArray, NumberRow, BinaryImpl } from '@tsge/ops/kernel-support';
import { numberOutput, numbersOf } from './math-values.js';
import { kernelError, requireTensor } from './kernel-inputs.js';

export function broadcastOrThrow(ctx: KernelContextV1, tensors: readonly HostTensor[]): number[] {
  const dims = broadcastStaticDims(tensors.map((t) => t.dims));
  if (!dims) throw kernelError(ctx, `shapes ${tensors.map((t) => `[${t.dims.join(',')}]`).join(', ')} do not broadcast`);
  return dims;
}

function genericRow(f: (a: number, b: number) => number): NumberRow {
  return (a, ia, sa, b, ib, sb, out, o, n) => {
    for (let k = 0; k < n; k++) {
      out[o + k] = f(a[ia]!, b[ib]!);
      ia += sa;
      ib += sb;
    }
  };
}

function runRows(plan: BroadcastRows, a: NumberArray, b: NumberArray, out: NumberArray, row: NumberRow): void {
  const aOffsets = plan.offsets[0]!;
  const bOffsets = plan.offsets[1]!;
  const sa = plan.steps[0]!;
  const sb = plan.steps[1]!;
  const n = plan.rowLength;
  for (let r = 0; r < plan.rowCount; r++) row(a, aOffsets[r]!, sa, b, bOffsets[r]!, sb, out, r * n, n);
}

/** Runs a binary elementwise kernel: inputs 0 and 1, output 0 of `outDtype` (default: input 0's). */
/**
 * Input 1 as broadcasting sees it: before opset 7, `broadcast=1` with `axis` aligned B's dims at
 * `axis` of A rather than at the end, so B gets trailing 1s.
 */
export function legacyAlignedSecond(ctx: KernelContextV1, a: HostTensor, b: HostTensor): HostTensor {
  if (!ctx.attrs.has('broadcast') || ctx.attrs.int('broadcast', 0) === 0 || !ctx.attrs.has('axis')) return b;
  const rank = a.dims.length;
  const raw = ctx.attrs.int('axis');
  const axis = raw < 0 ? raw + rank : raw;
  const trailing = rank - axis - b.dims.length;
  if (axis < 0 || trailing <= 0) return b;
  return { ...b, dims: [...b.dims, ...new Array<number>(trailing).fill(1)] };
}

export function computeBinary(ctx: KernelContextV1, impl: BinaryImpl, outDtype?: DataType): void {
  const a = requireTensor(ctx, 0);
  const b = legacyAlignedSecond(ctx, a, requireTensor(ctx, 1));
  const dims = broadcastOrThrow(ctx, [a, b]);
  const dtype = outDtype ?? a.type;
  const plan = planBroadcastRows([a.dims, b.dims], dims);
  if (isBigIntType(a.type) && isBigIntType(b.type) && (impl.bigint || impl.bigintPredicate)) {
    const out = ctx.output(0, dims, dtype);
    const A = a.data as BigInt64Array;
    const B = b.data as BigInt64Array;
    const n = plan.rowLength;
    const [sa, sb] = plan.steps as [number, number];
    if (impl.bigint) {
      const f = impl.bigint;
      const O = out.data as BigInt64Array;
      for (let r = 0; r < plan.rowCount; r++) {
        let ia = plan.offsets[0]![r]!;
        let ib = plan.offsets[1]![r]!;
        const o = r * n;
        for (let k = 0; k < n; k++, ia += sa, ib += sb) O[o + k] = f(A[ia]!, B[ib]!);
      }
    } else {
      const f = impl.bigintPredicate!;
      const O = out.data as Uint8Array;
      for (let r = 0; r < plan.rowCount; r++) {
        let ia = plan.offsets[0]![r]!;
        let ib = plan.offsets[1]![r]!;
        const o = r * n;
        for (let k = 0; k < n; k++, ia += sa, ib += sb) O[o + k] = f(A[ia]!, B[ib]!) ? 1 : 0;
      }
    }
    return;
  }
  const out = numberOutput(ctx, 0, dims, dtype);
  runRows(plan, numbersOf(a), numbersOf(b), out.values, impl.row ?? genericRow(impl.number));
  out.commit();
}
