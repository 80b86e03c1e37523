/** Einsum (explicit and implicit output, ellipsis, repeated labels/diagonals, broadcasting) and Det. */
import type { KernelContextV1, KernelV1, OpDefinitionV1, Shape } from '@tsge/metadef';
import { InferenceError, isUnknownRank } from '@tsge/metadef';
import { type NumberArray, kernelError, numberOutput, numbersOf, requireTensor } from '../common/math-values.js';
import { requireInput } from '../common/infer-helpers.js';
import { defineKernel, defineOp, param } from '../define.js';
import { FLOATS, NUMERIC } from './op-types.js';

/** A parsed equation: per operand its label list (ellipsis dims get labels '0'…'9'...), and the output's. */
export interface EinsumPlan {
  readonly inputs: readonly (readonly string[])[];
  readonly output: readonly string[];
}

const ELLIPSIS_LABEL = (i: number): string => `#${i}`;

function parseTerm(term: string, rank: number, ellipsisRank: number): string[] | undefined {
  const parts = term.split('...');
  if (parts.length > 2) return undefined;
  const letters = (s: string): string[] | undefined => {
    const out = [...s];
    return out.every((c) => /[A-Za-z]/.test(c)) ? out : undefined;
  };
  const head = letters(parts[0]!);
  if (!head) return undefined;
  if (parts.length === 1) return head;
  const tail = letters(parts[1]!);
  if (!tail) return undefined;
  const e = rank < 0 ? ellipsisRank : rank - head.length - tail.length;
  if (e < 0) return undefined;
  const ellipsis = Array.from({ length: e }, (_, i) => ELLIPSIS_LABEL(ellipsisRank - e + i));
  return [...head, ...ellipsis, ...tail];
}

/** Parses `equation` for operands of the given ranks; returns a message string on error. */
export function parseEinsum(equation: string, ranks: readonly number[]): EinsumPlan | string {
  const eq = equation.replace(/\s+/g, '');
  const [lhs, rhs] = eq.split('->') as [string, string | undefined];
  const terms = lhs.split(',');
  if (terms.length !== ranks.length) return `equation has ${terms.length} operands but ${ranks.length} inputs are given`;
  let ellipsisRank = 0;
  terms.forEach((t, i) => {
    if (t.includes('...')) ellipsisRank = Math.max(ellipsisRank, ranks[i]! - (t.length - 3));
  });
  const inputs: string[][] = [];
  for (let i = 0; i < terms.length; i++) {
    const labels = parseTerm(terms[i]!, ranks[i]!, ellipsisRank);
    if (!labels || labels.length !== ranks[i]) return `term '${terms[i]}' does not match an input of rank ${ranks[i]}`;
    inputs.push(labels);
  }
  let output: string[];
  if (rhs !== undefined) {
    const parsed = parseTerm(rhs, -1, ellipsisRank);
    if (!parsed) return `output term '${rhs}' is invalid`;
    output = parsed;
  } else {
    const counts = new Map<string, number>();
    for (const labels of inputs) for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
    const ellipsis = Array.from({ length: ellipsisRank }, (_, i) => ELLIPSIS_LABEL(i));
    const single = [...counts.entries()].filter(([l, c]) => c === 1 && !l.startsWith('#')).map(([l]) => l);
    output = [...ellipsis, ...single.sort()];
  }
  const known = new Set(inputs.flat());
  for (const l of output) if (!known.has(l)) return `output label ${l} does not appear in the inputs`;
  if (new Set(output).size !== output.length) return 'output labels repeat';
  return { inputs, output };
}

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

export const einsumOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Einsum',
    sinceVersion: 12,
    inputs: [param.variadic('Inputs', 'T')],
    outputs: [param.required('Output', 'T')],
    attributes: [{ name: 'equation', kind: 'string', required: true }],
    typeConstraints: [{ name: 'T', allowed: NUMERIC }],
    infer: (ctx) => {
      const inputs = Array.from({ length: ctx.inputCount }, (_, i) => requireInput(ctx, i));
      if (inputs.some((v) => isUnknownRank(v.shape))) return ctx.setOutput(0, { dtype: inputs[0]!.dtype, shape: [-2] });
      const plan = parseEinsum(
        ctx.attrs.string('equation'),
        inputs.map((v) => v.shape.length),
      );
      if (typeof plan === 'string') throw new InferenceError(`Einsum ${ctx.nodeName}: ${plan}`);
      const shape: Shape = plan.output.map((label) => {
        let dim: number | string = 1;
        plan.inputs.forEach((labels, i) => {
          labels.forEach((l, axis) => {
            const d = inputs[i]!.shape[axis]!;
            if (l === label && d !== 1) dim = d;
          });
        });
        return dim;
      });
      ctx.setOutput(0, { dtype: inputs[0]!.dtype, shape });
    },
  }),
  defineOp({
    type: 'Det',
    sinceVersion: 22,
    inputs: [param.required('X', 'T')],
    outputs: [param.required('Y', 'T')],
    typeConstraints: [{ name: 'T', allowed: FLOATS }],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      if (isUnknownRank(x.shape)) return ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
      if (x.shape.length < 2) throw new InferenceError(`Det ${ctx.nodeName}: input rank must be ≥ 2`);
      ctx.setOutput(0, { dtype: x.dtype, shape: x.shape.slice(0, -2) });
    },
  }),
];

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
