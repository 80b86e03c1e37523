/** Einsum (explicit and implicit output, ellipsis, repeated labels/diagonals, broadcasting) and Det. */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { type NumberArray, type EinsumPlan, parseEinsum } from '@tsge/ops/kernel-support';
import { numberOutput, numbersOf } from '../common/math-values.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

function labelSizes(plan: EinsumPlan, dims: readonly (readonly number[])[]): Map<string, number> | string {
  const sizes = new Map<string, number>();
  for (let i = 0; i < plan.inputs.length; i++) {
    plan.inputs[i]!.forEach((label, axis) => {
      const known = sizes.get(label);
      if (known === undefined || known === 1) sizes.set(label, dims[i]![axis]!);
    });
  }
  for (let i = 0; i < plan.inputs.length; i++) {
    for (let axis = 0; axis < plan.inputs[i]!.length; axis++) {
      const label = plan.inputs[i]![axis]!;
      const d = dims[i]![axis]!;
      if (d !== sizes.get(label) && d !== 1) return `label ${label} has sizes ${d} and ${sizes.get(label)}`;
    }
  }
  return sizes;
}

interface EinsumLoops {
  readonly data: readonly NumberArray[];
  /** strides[operand][label]: how far each loop label moves each operand. */
  readonly strides: readonly (readonly number[])[];
  readonly extents: readonly number[];
  /** Product of the summed labels' extents. */
  readonly innerCount: number;
  /** Whether the last loop label is an output label (no label is summed). */
  readonly lastIsOutput: boolean;
}

/** Sums operand products into `acc`; the last label runs as a tight inner loop, the rest by odometer. */
function accumulateEinsum(loops: EinsumLoops, acc: Float64Array): void {
  const { data, strides, extents, innerCount, lastIsOutput } = loops;
  const last = extents.length - 1;
  if (last < 0) {
    let product = 1;
    for (const d of data) product *= d[0]!;
    acc[0] = product;
    return;
  }
  const lastExtent = extents[last]!;
  let total = 1;
  for (const e of extents) total *= e;
  if (total === 0) return;
  const lastStrides = strides.map((s) => s[last]!);
  const offsets = new Array<number>(data.length).fill(0);
  const index = new Array<number>(last).fill(0);
  const a = data[0]!;
  const b = data[1];
  const sa = lastStrides[0]!;
  const sb = lastStrides[1] ?? 0;
  for (let start = 0; start < total; start += lastExtent) {
    const slot = lastIsOutput ? start : Math.floor(start / innerCount);
    let pa = offsets[0]!;
    if (data.length === 1) {
      if (lastIsOutput) for (let t = 0; t < lastExtent; t++, pa += sa) acc[slot + t]! += a[pa]!;
      else {
        let sum = 0;
        for (let t = 0; t < lastExtent; t++, pa += sa) sum += a[pa]!;
        acc[slot]! += sum;
      }
    } else if (data.length === 2 && b) {
      let pb = offsets[1]!;
      if (lastIsOutput) for (let t = 0; t < lastExtent; t++, pa += sa, pb += sb) acc[slot + t]! += a[pa]! * b[pb]!;
      else {
        let sum = 0;
        for (let t = 0; t < lastExtent; t++, pa += sa, pb += sb) sum += a[pa]! * b[pb]!;
        acc[slot]! += sum;
      }
    } else {
      for (let t = 0; t < lastExtent; t++) {
        let product = 1;
        for (let i = 0; i < data.length; i++) product *= data[i]![offsets[i]! + t * lastStrides[i]!]!;
        acc[lastIsOutput ? slot + t : slot]! += product;
      }
    }
    for (let j = last - 1; j >= 0; j--) {
      index[j]!++;
      for (let i = 0; i < offsets.length; i++) offsets[i]! += strides[i]![j]!;
      if (index[j]! < extents[j]!) break;
      for (let i = 0; i < offsets.length; i++) offsets[i]! -= strides[i]![j]! * extents[j]!;
      index[j] = 0;
    }
  }
}

function computeEinsum(ctx: KernelContextV1): void {
  const tensors = Array.from({ length: ctx.inputCount }, (_, i) => requireTensor(ctx, i));
  const plan = parseEinsum(
    ctx.attrs.string('equation'),
    tensors.map((t) => t.dims.length),
  );
  if (typeof plan === 'string') throw kernelError(ctx, plan);
  const sizes = labelSizes(
    plan,
    tensors.map((t) => t.dims),
  );
  if (typeof sizes === 'string') throw kernelError(ctx, sizes);
  const summed = [...sizes.keys()].filter((l) => !plan.output.includes(l));
  const order = [...plan.output, ...summed];
  const extents = order.map((l) => sizes.get(l)!);
  const outDims = plan.output.map((l) => sizes.get(l)!);
  // per operand, the stride each loop label moves it by (repeated labels add up: diagonals)
  const strides = tensors.map((t, i) => {
    const s = new Array<number>(order.length).fill(0);
    let acc = 1;
    for (let axis = t.dims.length - 1; axis >= 0; axis--) {
      const label = plan.inputs[i]![axis]!;
      if (t.dims[axis]! !== 1) s[order.indexOf(label)]! += acc;
      acc *= t.dims[axis]!;
    }
    return s;
  });
  const data = tensors.map(numbersOf);
  const out = numberOutput(ctx, 0, outDims, tensors[0]!.type);
  let outCount = 1;
  for (const d of outDims) outCount *= d;
  let innerCount = 1;
  for (let j = plan.output.length; j < order.length; j++) innerCount *= extents[j]!;
  const acc = new Float64Array(outCount);
  accumulateEinsum({ data, strides, extents, innerCount, lastIsOutput: summed.length === 0 }, acc);
  out.values.set(acc);
  out.commit();
}

function determinant(a: Float64Array, n: number): number {
  let det = 1;
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r * n + c]!) > Math.abs(a[pivot * n + c]!)) pivot = r;
    const p = a[pivot * n + c]!;
    if (p === 0) return 0;
    if (pivot !== c) {
      for (let k = 0; k < n; k++) {
        const t = a[c * n + k]!;
        a[c * n + k] = a[pivot * n + k]!;
        a[pivot * n + k] = t;
      }
      det = -det;
    }
    det *= p;
    for (let r = c + 1; r < n; r++) {
      const f = a[r * n + c]! / p;
      if (f !== 0) for (let k = c; k < n; k++) a[r * n + k]! -= f * a[c * n + k]!;
    }
  }
  return det;
}

export const einsumKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'Einsum', compute: computeEinsum }),
  defineKernel({
    opType: 'Det',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const rank = x.dims.length;
      if (rank < 2 || x.dims[rank - 1] !== x.dims[rank - 2]) throw kernelError(ctx, 'input must be (..., M, M)');
      const n = x.dims[rank - 1]!;
      const src = numbersOf(x);
      const outDims = x.dims.slice(0, -2);
      const out = numberOutput(ctx, 0, outDims, x.type);
      const count = out.values.length;
      for (let b = 0; b < count; b++) out.values[b] = determinant(Float64Array.from(src.subarray(b * n * n, (b + 1) * n * n)), n);
      out.commit();
    },
  }),
];
