/** Sum, Mean, Max, Min over one or more broadcasting inputs. */
import { type HostTensor, type KernelContextV1, type KernelV1, isBigIntType } from '@tsge/metadef';
import { broadcastOrThrow } from '../common/math-binary.js';
import { planBroadcastRows } from '../common/math-broadcast-rows.js';
import { numberOutput, numbersOf } from '../common/math-values.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { type Combine, OPS } from '@tsge/ops/kernel-support';

function combineNumbers(kind: Combine, acc: number, v: number): number {
  if (kind === 'sum') return acc + v;
  if (Number.isNaN(acc) || Number.isNaN(v)) return Number.NaN;
  return kind === 'max' ? Math.max(acc, v) : Math.min(acc, v);
}
function combineBig(kind: Combine, acc: bigint, v: bigint): bigint {
  return kind === 'sum' ? acc + v : kind === 'max' ? (v > acc ? v : acc) : v < acc ? v : acc;
}

function computeVariadic(ctx: KernelContextV1, kind: Combine, mean: boolean): void {
  const inputs: HostTensor[] = [];
  for (let i = 0; i < ctx.inputCount; i++) inputs.push(requireTensor(ctx, i));
  if (inputs.length === 0) throw kernelError(ctx, 'needs at least one input');
  if (inputs.some((t) => t.type !== inputs[0]!.type)) throw kernelError(ctx, `inputs mix dtypes ${inputs.map((t) => t.type).join(', ')}`);
  const dims = broadcastOrThrow(ctx, inputs);
  const dtype = inputs[0]!.type;
  const plan = planBroadcastRows(
    inputs.map((t) => t.dims),
    dims,
  );
  const n = plan.rowLength;
  if (isBigIntType(dtype)) {
    const out = ctx.output(0, dims, dtype).data as BigInt64Array;
    for (let i = 0; i < inputs.length; i++) {
      const src = inputs[i]!.data as BigInt64Array;
      const step = plan.steps[i]!;
      for (let r = 0; r < plan.rowCount; r++) {
        let p = plan.offsets[i]![r]!;
        for (let k = 0, o = r * n; k < n; k++, o++, p += step) out[o] = i === 0 ? src[p]! : combineBig(kind, out[o]!, src[p]!);
      }
    }
    if (mean) for (let o = 0; o < out.length; o++) out[o] = out[o]! / BigInt(inputs.length);
    return;
  }
  // accumulate in float64 so float32/float16 sums round once
  const acc = new Float64Array(plan.total);
  for (let i = 0; i < inputs.length; i++) {
    const src = numbersOf(inputs[i]!);
    const step = plan.steps[i]!;
    for (let r = 0; r < plan.rowCount; r++) {
      let p = plan.offsets[i]![r]!;
      for (let k = 0, o = r * n; k < n; k++, o++, p += step) acc[o] = i === 0 ? src[p]! : combineNumbers(kind, acc[o]!, src[p]!);
    }
  }
  if (mean) for (let o = 0; o < acc.length; o++) acc[o] = acc[o]! / inputs.length;
  const out = numberOutput(ctx, 0, dims, dtype);
  out.values.set(acc);
  out.commit();
}

export const variadicKernels: readonly KernelV1[] = OPS.map(([opType, kind, mean]) =>
  defineKernel({ opType, compute: (ctx) => computeVariadic(ctx, kind, mean) }),
);
