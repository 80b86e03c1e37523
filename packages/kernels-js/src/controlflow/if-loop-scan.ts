// If, Loop and Scan: kernels drive `ctx.runSubgraph`; inference uses `ctx.inferSubgraph` when the
// host offers it and otherwise leaves what it cannot know unknown.
import { type HostTensor, type KernelContextV1, type RuntimeValue, createTensor, isHostTensor, readNumber } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/tensor-infer.js';
import { stackInto, stackedDims, takeAlongAxis } from '../common/tensor-stack.js';
import { defineKernel } from '../define.js';
import { scanAxes, isScan8 } from '@tsge/ops/kernel-support';

function scalarBool(value: boolean): HostTensor {
  return createTensor('bool', [], Uint8Array.of(value ? 1 : 0));
}

function truthy(t: RuntimeValue | undefined, ctx: KernelContextV1, what: string): boolean {
  if (!isHostTensor(t) || t.data.length !== 1) throw kernelError(ctx, `${what} must be a one-element tensor`);
  return readNumber(t, 0) !== 0;
}

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
export const ifLoopScanKernels = [ifKernel, loopKernel, scanKernel];
