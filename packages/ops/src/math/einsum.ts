/** Einsum (explicit and implicit output, ellipsis, repeated labels/diagonals, broadcasting) and Det. */
import { type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
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
