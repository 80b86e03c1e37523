// If, Loop and Scan: kernels drive `ctx.runSubgraph`; inference uses `ctx.inferSubgraph` when the
// host offers it and otherwise leaves what it cannot know unknown.
import { type Dim, type InferenceContextV1, type Shape, type ValueInfo, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { formalInputCount, nodeOpset, normalizeAxisInclusive, whereOf, MOVABLE_TYPES } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

const ANY = [{ name: 'V', allowed: MOVABLE_TYPES, allowedKinds: ['seq(*)', 'optional(*)'] }];

/** The common shape of two infos: equal dims kept, differing dims unknown, differing ranks unknown rank. */
function mergeShapes(a: Shape, b: Shape): Shape {
  if (isUnknownRank(a) || isUnknownRank(b) || a.length !== b.length) return [-2];
  return a.map((d, i): Dim => (d === b[i] ? d : -1));
}

function mergeInfos(a: ValueInfo | undefined, b: ValueInfo | undefined): ValueInfo | undefined {
  if (!a || !b) return a ?? b;
  return { ...a, shape: mergeShapes(a.shape, b.shape) };
}

export const ifOp = defineOp({
  type: 'If',
  sinceVersion: 25,
  inputs: [param.required('cond', 'bool')],
  outputs: [param.variadic('outputs', 'V', 1, false)],
  attributes: [
    { name: 'then_branch', kind: 'graph', required: true },
    { name: 'else_branch', kind: 'graph', required: true },
  ],
  typeConstraints: ANY,
  infer(ctx) {
    requireInput(ctx, 0);
    if (!ctx.inferSubgraph) return;
    const thenOut = ctx.inferSubgraph('then_branch', []);
    const elseOut = ctx.inferSubgraph('else_branch', []);
    for (let i = 0; i < ctx.outputCount; i++) {
      const merged = mergeInfos(thenOut[i], elseOut[i]);
      if (merged) ctx.setOutput(i, merged);
    }
  },
});

export const loopOp = defineOp({
  type: 'Loop',
  sinceVersion: 25,
  inputs: [param.optional('M', 'int64'), param.optional('cond', 'bool'), param.variadic('v_initial', 'V', 0, false)],
  outputs: [param.variadic('v_final_and_scan_outputs', 'V', 1, false)],
  attributes: [{ name: 'body', kind: 'graph', required: true }],
  typeConstraints: ANY,
  infer(ctx) {
    const carried: (ValueInfo | undefined)[] = [];
    const inputs = formalInputCount(ctx);
    for (let i = 2; i < inputs; i++) carried.push(ctx.input(i));
    const body = ctx.inferSubgraph?.('body', [{ dtype: 'int64', shape: [] }, { dtype: 'bool', shape: [] }, ...carried]);
    for (let i = 0; i < ctx.outputCount; i++) {
      if (i < carried.length) {
        const initial = carried[i];
        const next = body?.[i + 1];
        const merged = initial && next ? mergeInfos(initial, next) : (next ?? initial);
        if (merged) ctx.setOutput(i, merged);
      } else {
        const slice = body?.[i + 1];
        if (slice) ctx.setOutput(i, { ...slice, shape: isUnknownRank(slice.shape) ? [-2] : [-1, ...slice.shape] });
      }
    }
  },
});

export function scanAxes(ctx: { readonly attrs: InferenceContextV1['attrs'] }, name: string, count: number): number[] {
  const list = ctx.attrs.has(name) ? ctx.attrs.ints(name) : [];
  return Array.from({ length: count }, (_, i) => list[i] ?? 0);
}

/** Scan-8 (batched, with a leading sequence_lens input) differs from Scan-9+ without a schema change. */
export function isScan8(ctx: { readonly attrs: InferenceContextV1['attrs']; readonly opsetVersion: number }): boolean {
  const opset = nodeOpset(ctx);
  return opset > 0 && opset < 9;
}

/** Scan-8 inference: states carry a leading batch axis, scan inputs/outputs [batch, sequence, ...]. */
function inferScan8(ctx: InferenceContextV1): void {
  const m = ctx.attrs.int('num_scan_inputs');
  const inputs = formalInputCount(ctx);
  const n = inputs - 1 - m;
  const strip = (v: ValueInfo | undefined, count: number): ValueInfo | undefined =>
    v && { ...v, shape: isUnknownRank(v.shape) ? [-2] : v.shape.slice(count) };
  const bodyInputs: (ValueInfo | undefined)[] = [];
  let batch: Dim = -1;
  let length: Dim = -1;
  for (let i = 1; i < inputs; i++) {
    const v = ctx.input(i);
    if (v && !isUnknownRank(v.shape)) {
      batch = v.shape[0] ?? -1;
      if (i > n) length = v.shape[1] ?? -1;
    }
    bodyInputs.push(strip(v, i > n ? 2 : 1));
  }
  const body = ctx.inferSubgraph?.('body', bodyInputs);
  for (let i = 0; i < ctx.outputCount; i++) {
    const out = body?.[i];
    if (!out) continue;
    const prefix: Dim[] = i < n ? [batch] : [batch, length];
    ctx.setOutput(i, { ...out, shape: isUnknownRank(out.shape) ? [-2] : [...prefix, ...out.shape] });
  }
}

export const scanOp = defineOp({
  type: 'Scan',
  sinceVersion: 25,
  inputs: [param.variadic('initial_state_and_scan_inputs', 'V', 1, false)],
  outputs: [param.variadic('final_state_and_scan_outputs', 'V', 1, false)],
  attributes: [
    { name: 'body', kind: 'graph', required: true },
    { name: 'num_scan_inputs', kind: 'int', required: true },
    { name: 'scan_input_axes', kind: 'ints' },
    { name: 'scan_input_directions', kind: 'ints' },
    { name: 'scan_output_axes', kind: 'ints' },
    { name: 'scan_output_directions', kind: 'ints' },
  ],
  typeConstraints: ANY,
  infer(ctx) {
    if (isScan8(ctx)) {
      inferScan8(ctx);
      return;
    }
    const m = ctx.attrs.int('num_scan_inputs');
    const inputs = formalInputCount(ctx);
    const n = inputs - m;
    const inAxes = scanAxes(ctx, 'scan_input_axes', m);
    const outAxes = scanAxes(ctx, 'scan_output_axes', ctx.outputCount - n);
    const bodyInputs: (ValueInfo | undefined)[] = [];
    let length: Dim = -1;
    for (let i = 0; i < inputs; i++) {
      const v = ctx.input(i);
      if (i < n || !v || isUnknownRank(v.shape)) {
        bodyInputs.push(i < n ? v : v && { ...v, shape: [-2] });
        continue;
      }
      const axis = normalizeAxisInclusive(inAxes[i - n] as number, v.shape.length - 1, whereOf(ctx));
      length = v.shape[axis] as Dim;
      bodyInputs.push({ ...v, shape: v.shape.filter((_, d) => d !== axis) });
    }
    const body = ctx.inferSubgraph?.('body', bodyInputs);
    for (let i = 0; i < ctx.outputCount; i++) {
      const out = body?.[i];
      if (i < n) {
        const merged = mergeInfos(ctx.input(i), out);
        if (merged) ctx.setOutput(i, merged);
      } else if (out) {
        if (isUnknownRank(out.shape)) ctx.setOutput(i, { ...out, shape: [-2] });
        else {
          const shape: Dim[] = [...out.shape];
          shape.splice(normalizeAxisInclusive(outAxes[i - n] as number, out.shape.length, whereOf(ctx)), 0, length);
          ctx.setOutput(i, { ...out, shape });
        }
      }
    }
  },
});

export const ifLoopScanOps = [ifOp, loopOp, scanOp];
