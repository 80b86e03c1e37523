import type { DataType, HostTensor, KernelContextV1, LinearMemory, ParallelRunnerV1, RuntimeValue } from '@tsge/metadef';
import { DTYPE_BYTES, createAttrReader, isHostTensor, shapeSize, shapeToString } from '@tsge/metadef';
import type { TensorRef } from '@tsge/om';
import type { KernelCall } from '../model/kernel-call.js';
import type { BoundKernel } from '../model/kernel-set.js';
import { type DeviceViews, type RegionBases, regionBase, tensorAt, writeInto } from './device-tensors.js';
import { kernelError, kernelFailure } from './kernel-failure.js';

/** Where a call's planned tensors are: the device's views of its memory and the region bases of the run. */
export interface RefPlace {
  readonly views: DeviceViews;
  readonly bases: RegionBases;
  readonly memory?: LinearMemory;
  /** Intra-op parallelism for kernels that split their work into tiles. */
  readonly parallel?: ParallelRunnerV1;
  /**
   * Contexts built for this place, reused by later runs (sink mode: the places of a slot never
   * move, so views and attribute readers are made once per call and slot).
   */
  readonly cache?: Map<KernelCall, KernelContextV1>;
}

const sameDims = (a: readonly number[], b: readonly (number | string)[]): boolean => a.length === b.length && a.every((d, i) => d === b[i]);

/** The kernel context of a call over its planned places. */
function refContext(call: KernelCall, place: RefPlace): KernelContextV1 {
  const { views, bases } = place;
  const inputs: (HostTensor | undefined)[] = call.inputs.map((ref) => (ref.region === 'none' ? undefined : tensorAt(ref, views, bases)));
  const outputs: (HostTensor | undefined)[] = call.outputs.map((ref) => (ref.region === 'none' ? undefined : tensorAt(ref, views, bases)));
  const plannedOutput = (index: number, dims: readonly number[], dtype: DataType): HostTensor => {
    const ref: TensorRef | undefined = call.outputs[index];
    if (!ref || ref.region === 'none') throw kernelError(call, `output ${index} has no planned place`);
    if (dtype !== ref.dtype) throw kernelError(call, `output ${index} has dtype ${dtype}; the plan has ${ref.dtype}`);
    const planned = outputs[index];
    if (planned && sameDims(dims, ref.shape)) return planned;
    const count = shapeSize(dims);
    if (count === undefined || count !== shapeSize(ref.shape)) {
      const bytes = (count ?? 0) * DTYPE_BYTES[dtype];
      throw kernelError(
        call,
        `output ${index} has dims ${shapeToString(dims)} (${bytes} bytes); the plan has ${shapeToString(ref.shape)} (${ref.bytes} bytes)`,
      );
    }
    return tensorAt(ref, views, bases, dims);
  };
  return {
    nodeName: call.node,
    opType: call.opType,
    attrs: createAttrReader(call.attrs),
    inputCount: inputs.length,
    outputCount: call.outputs.length,
    opsetVersion: call.opsetVersion,
    ...(place.memory ? { memory: place.memory } : {}),
    ...(place.parallel ? { parallel: place.parallel } : {}),
    input: (index) => inputs[index],
    tensor: (index) => inputs[index],
    output: plannedOutput,
    setOutput(index, value: RuntimeValue) {
      if (!isHostTensor(value)) throw kernelError(call, `output ${index} is a ${value.kind}; sequences and optionals need host mode`);
      writeInto(plannedOutput(index, value.dims, value.type), value, call.node);
    },
    runSubgraph: () => {
      throw kernelError(call, 'subgraphs run in host mode only');
    },
  };
}

/**
 * Runs one kernel call with sink semantics: every input and output is the planned tensor in device
 * memory. An output must have the planned dtype and element count (consumers read the planned
 * shape); anything else is an error naming the node, never a write outside the plan.
 */
export function runRefCall(call: KernelCall, bound: BoundKernel, place: RefPlace): void {
  // a view whose output is its input's bytes: the kernel would only find there is nothing to copy
  if (call.placedView) return;
  if (bound.kind === 'wasm') {
    const { bases } = place;
    const addresses: number[] = [];
    for (const ref of [...call.inputs, ...call.outputs]) addresses.push(ref.region === 'none' ? 0 : regionBase(ref, bases) + ref.offset);
    if (call.workspace) addresses.push(regionBase(call.workspace, bases) + call.workspace.offset);
    try {
      bound.run(...addresses);
    } catch (error) {
      throw kernelFailure(call, error);
    }
    return;
  }
  let context = place.cache?.get(call);
  if (!context) {
    context = refContext(call, place);
    place.cache?.set(call, context);
  }
  try {
    bound.kernel.compute(context);
  } catch (error) {
    throw kernelFailure(call, error);
  }
}
