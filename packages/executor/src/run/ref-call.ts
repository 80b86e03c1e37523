import type { DataType, HostTensor, KernelContextV1, LinearMemory, RuntimeValue } from '@tsge/metadef';
import { DTYPE_BYTES, createAttrReader, isHostTensor, shapeSize, shapeToString } from '@tsge/metadef';
import type { TensorRef } from '@tsge/om';
import type { KernelCall } from '../model/kernel-call.js';
import type { BoundKernel } from '../model/kernel-set.js';
import { type RegionBases, regionBase, tensorAt, writeInto } from './device-tensors.js';
import { kernelError, kernelFailure } from './kernel-failure.js';

/**
 * Runs one kernel call with sink semantics: every input and output is the planned tensor in device
 * memory. An output must have the planned dtype and element count (consumers read the planned
 * shape); anything else is an error naming the node, never a write outside the plan.
 */
export function runRefCall(call: KernelCall, bound: BoundKernel, buffer: ArrayBufferLike, bases: RegionBases, memory?: LinearMemory): void {
  if (bound.kind === 'wasm') {
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
  const inputs: (HostTensor | undefined)[] = call.inputs.map((ref) => (ref.region === 'none' ? undefined : tensorAt(ref, buffer, bases)));
  const plannedOutput = (index: number, dims: readonly number[], dtype: DataType): HostTensor => {
    const ref: TensorRef | undefined = call.outputs[index];
    if (!ref || ref.region === 'none') throw kernelError(call, `output ${index} has no planned place`);
    if (dtype !== ref.dtype) throw kernelError(call, `output ${index} has dtype ${dtype}; the plan has ${ref.dtype}`);
    const count = shapeSize(dims);
    if (count === undefined || count !== shapeSize(ref.shape)) {
      const bytes = (count ?? 0) * DTYPE_BYTES[dtype];
      throw kernelError(
        call,
        `output ${index} has dims ${shapeToString(dims)} (${bytes} bytes); the plan has ${shapeToString(ref.shape)} (${ref.bytes} bytes)`,
      );
    }
    return tensorAt(ref, buffer, bases, dims);
  };
  const context: KernelContextV1 = {
    nodeName: call.node,
    opType: call.opType,
    attrs: createAttrReader(call.attrs),
    inputCount: inputs.length,
    outputCount: call.outputs.length,
    opsetVersion: call.opsetVersion,
    ...(memory ? { memory } : {}),
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
  try {
    bound.kernel.compute(context);
  } catch (error) {
    throw kernelFailure(call, error);
  }
}
