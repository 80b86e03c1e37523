// If, Loop and Scan: kernels drive `ctx.runSubgraph`; inference uses `ctx.inferSubgraph` when the
// host offers it and otherwise leaves what it cannot know unknown.
import type { Dim, HostTensor, InferenceContextV1, KernelContextV1, RuntimeValue, Shape, ValueInfo } from '@tsge/metadef';
import { createTensor, isHostTensor, isUnknownRank, readNumber } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import {
  formalInputCount,
  kernelError,
  nodeOpset,
  normalizeAxisInclusive,
  requireTensor,
  whereOf,
  MOVABLE_TYPES,
} from '../common/tensor-infer.js';
import { stackInto, stackedDims, takeAlongAxis } from '../common/tensor-stack.js';
import { defineKernel, defineOp, param } from '../define.js';

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

function scalarBool(value: boolean): HostTensor {
  return createTensor('bool', [], Uint8Array.of(value ? 1 : 0));
}

function truthy(t: RuntimeValue | undefined, ctx: KernelContextV1, what: string): boolean {
  if (!isHostTensor(t) || t.data.length !== 1) throw kernelError(ctx, `${what} must be a one-element tensor`);
  return readNumber(t, 0) !== 0;
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

export const ifKernel = defineKernel({
  opType: 'If',
  compute(ctx) {
    const branch = truthy(ctx.input(0), ctx, 'cond') ? 'then_branch' : 'else_branch';
    const outputs = ctx.runSubgraph(branch, []);
    if (outputs.length < ctx.outputCount)
      throw kernelError(ctx, `${branch} gives ${outputs.length} outputs, the node has ${ctx.outputCount}`);
    for (let i = 0; i < ctx.outputCount; i++) ctx.setOutput(i, outputs[i] as RuntimeValue);
  },
});

/** Sets output `index` to `items` stacked along a new axis (empty → a [0] tensor of `dtype`). */
function setStacked(ctx: KernelContextV1, index: number, items: readonly RuntimeValue[], axis: number, reverse: boolean): void {
  const tensors: HostTensor[] = [];
  for (const v of items) {
    if (!isHostTensor(v)) throw kernelError(ctx, 'scan outputs must be tensors');
    tensors.push(v);
  }
  if (reverse) tensors.reverse();
  const first = tensors[0];
  if (!first) {
    ctx.output(index, [0], 'float32');
    return;
  }
  const dims = stackedDims(tensors, axis);
  if (!dims) throw kernelError(ctx, 'scan output shapes differ between iterations');
  stackInto(tensors, axis, ctx.output(index, dims, first.type));
}

/**
 * Iterations after which a Loop is taken to be runaway (a while-loop whose condition never turns
 * false): failing with a diagnostic beats hanging the process on an untrusted model.
 */
export const MAX_LOOP_ITERATIONS = 2 ** 24;

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

export const loopKernel = defineKernel({
  opType: 'Loop',
  compute(ctx) {
    const tripT = ctx.tensor(0);
    const condT = ctx.tensor(1);
    const maxTrips = tripT ? readNumber(tripT, 0) : Number.POSITIVE_INFINITY;
    let cond = condT ? truthy(condT, ctx, 'cond') : true;
    let carried: RuntimeValue[] = [];
    for (let i = 2; i < ctx.inputCount; i++) {
      const v = ctx.input(i);
      if (v === undefined) throw kernelError(ctx, `loop-carried input ${i} is missing`);
      carried.push(v);
    }
    const scanCount = ctx.outputCount - carried.length;
    if (scanCount < 0) throw kernelError(ctx, 'fewer outputs than loop-carried values');
    const scans: RuntimeValue[][] = Array.from({ length: scanCount }, () => []);
    if (!tripT && !condT) throw kernelError(ctx, 'a Loop without M and cond never ends');
    for (let i = 0; i < maxTrips && cond; i++) {
      if (i === MAX_LOOP_ITERATIONS) throw kernelError(ctx, `ran ${MAX_LOOP_ITERATIONS} iterations without stopping`);
      const outputs = ctx.runSubgraph('body', [createTensor('int64', [], BigInt64Array.of(BigInt(i))), scalarBool(cond), ...carried]);
      if (outputs.length !== 1 + carried.length + scanCount)
        throw kernelError(ctx, `body gives ${outputs.length} outputs, expected ${1 + carried.length + scanCount}`);
      // without a cond input the loop is a plain for loop: the body's cond output is ignored
      if (condT) cond = truthy(outputs[0], ctx, 'body cond output');
      carried = outputs.slice(1, 1 + carried.length);
      for (let k = 0; k < scanCount; k++) (scans[k] as RuntimeValue[]).push(outputs[1 + carried.length + k] as RuntimeValue);
    }
    for (const [i, v] of carried.entries()) ctx.setOutput(i, v);
    for (const [k, items] of scans.entries()) setStacked(ctx, carried.length + k, items, 0, false);
  },
});

function scanAxes(ctx: { readonly attrs: InferenceContextV1['attrs'] }, name: string, count: number): number[] {
  const list = ctx.attrs.has(name) ? ctx.attrs.ints(name) : [];
  return Array.from({ length: count }, (_, i) => list[i] ?? 0);
}

/** Scan-8 (batched, with a leading sequence_lens input) differs from Scan-9+ without a schema change. */
function isScan8(ctx: { readonly attrs: InferenceContextV1['attrs']; readonly opsetVersion: number }): boolean {
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

/** Runs the body over `length` steps; returns the final states and each scan output's items. */
function scanSteps(
  ctx: KernelContextV1,
  initial: readonly RuntimeValue[],
  scanInputs: readonly HostTensor[],
  axes: readonly number[],
  directions: readonly number[],
  scanOutputs: number,
): { states: RuntimeValue[]; scans: RuntimeValue[][] } {
  let length = -1;
  scanInputs.forEach((t, j) => {
    const len = t.dims[axes[j] as number] as number;
    if (length >= 0 && len !== length) throw kernelError(ctx, `scan inputs have lengths ${length} and ${len}`);
    length = len;
  });
  let states = [...initial];
  const n = states.length;
  const scans: RuntimeValue[][] = Array.from({ length: scanOutputs }, () => []);
  for (let t = 0; t < length; t++) {
    const slices = scanInputs.map((x, j) => takeAlongAxis(x, axes[j] as number, directions[j] === 1 ? length - 1 - t : t));
    const outputs = ctx.runSubgraph('body', [...states, ...slices]);
    if (outputs.length !== n + scanOutputs) throw kernelError(ctx, `body gives ${outputs.length} outputs, expected ${n + scanOutputs}`);
    states = outputs.slice(0, n);
    for (let i = 0; i < scanOutputs; i++) (scans[i] as RuntimeValue[]).push(outputs[n + i] as RuntimeValue);
  }
  return { states, scans };
}

function tensorInputs(ctx: KernelContextV1, from: number, count: number): HostTensor[] {
  return Array.from({ length: count }, (_, i) => requireTensor(ctx, from + i));
}

/** Scan-8: every input and output has a leading batch axis; the sequence axis is 1. */
function computeScan8(ctx: KernelContextV1): void {
  const m = ctx.attrs.int('num_scan_inputs');
  const n = ctx.inputCount - 1 - m;
  const k = ctx.outputCount - n;
  if (m < 1 || n < 0 || k < 0) throw kernelError(ctx, `num_scan_inputs ${m} does not fit ${ctx.inputCount} inputs`);
  if (ctx.tensor(0)) throw kernelError(ctx, 'sequence_lens of Scan-8 is not supported');
  const directions = scanAxes(ctx, 'directions', m);
  const states = tensorInputs(ctx, 1, n);
  const scanInputs = tensorInputs(ctx, 1 + n, m);
  const batch = (states[0] ?? scanInputs[0])?.dims[0] ?? 0;
  const finalStates: HostTensor[][] = Array.from({ length: n }, () => []);
  const scanOutputs: HostTensor[][] = Array.from({ length: k }, () => []);
  for (let b = 0; b < batch; b++) {
    const result = scanSteps(
      ctx,
      states.map((t) => takeAlongAxis(t, 0, b)),
      scanInputs.map((t) => takeAlongAxis(t, 0, b)),
      scanInputs.map(() => 0),
      directions,
      k,
    );
    result.states.forEach((v, i) => {
      if (!isHostTensor(v)) throw kernelError(ctx, 'Scan-8 states must be tensors');
      (finalStates[i] as HostTensor[]).push(v);
    });
    result.scans.forEach((items, i) => {
      const tensors = items.filter(isHostTensor);
      const dims = stackedDims(tensors, 0);
      if (!dims) throw kernelError(ctx, 'scan output shapes differ between iterations');
      const t = createTensor((tensors[0] as HostTensor).type, dims);
      stackInto(tensors, 0, t);
      (scanOutputs[i] as HostTensor[]).push(t);
    });
  }
  for (const [i, items] of [...finalStates, ...scanOutputs].entries()) setStacked(ctx, i, items, 0, false);
}

export const scanKernel = defineKernel({
  opType: 'Scan',
  compute(ctx) {
    if (isScan8(ctx)) {
      computeScan8(ctx);
      return;
    }
    const m = ctx.attrs.int('num_scan_inputs');
    const n = ctx.inputCount - m;
    const k = ctx.outputCount - n;
    if (m < 1 || n < 0 || k < 0) throw kernelError(ctx, `num_scan_inputs ${m} does not fit ${ctx.inputCount} inputs`);
    const inAxes = scanAxes(ctx, 'scan_input_axes', m);
    const inDirections = scanAxes(ctx, 'scan_input_directions', m);
    const outAxes = scanAxes(ctx, 'scan_output_axes', k);
    const outDirections = scanAxes(ctx, 'scan_output_directions', k);
    const initial: RuntimeValue[] = [];
    for (let i = 0; i < n; i++) {
      const v = ctx.input(i);
      if (v === undefined) throw kernelError(ctx, `state input ${i} is missing`);
      initial.push(v);
    }
    const scanInputs = tensorInputs(ctx, n, m);
    const axes = scanInputs.map((t, j) => {
      const rank = t.dims.length;
      const raw = inAxes[j] as number;
      if (raw < -rank || raw >= rank) throw kernelError(ctx, `scan input axis ${raw} is out of range for rank ${rank}`);
      return raw < 0 ? raw + rank : raw;
    });
    const { states, scans } = scanSteps(ctx, initial, scanInputs, axes, inDirections, k);
    for (const [i, v] of states.entries()) ctx.setOutput(i, v);
    for (const [i, items] of scans.entries()) {
      const first = items[0];
      const rank = isHostTensor(first) ? first.dims.length : 0;
      const raw = outAxes[i] as number;
      if (raw < -rank - 1 || raw > rank) throw kernelError(ctx, `scan output axis ${raw} is out of range`);
      setStacked(ctx, n + i, items, raw < 0 ? raw + rank + 1 : raw, outDirections[i] === 1);
    }
  },
});

export const ifLoopScanOps = [ifOp, loopOp, scanOp];
export const ifLoopScanKernels = [ifKernel, loopKernel, scanKernel];
