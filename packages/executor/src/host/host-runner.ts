import type {
  AttrReader,
  DataType,
  DeviceV1,
  EventHandle,
  Graph,
  HostTensor,
  KernelRegistry,
  LaunchV1,
  Node,
  ParallelRunnerV1,
  RuntimeValue,
  ValueInfo,
} from '@tsge/metadef';
import {
  ATTR_VALUE,
  CONST,
  TsgeError,
  DATA,
  DTYPE_BYTES,
  createAttrReader,
  createTensor,
  isDeviceError,
  isHostTensor,
  shapeSize,
  shapeToString,
} from '@tsge/metadef';
import { formalInputCount, interpretSubgraph } from '@tsge/kernels-js';
import type { KernelCall, PreparedPlan } from '../model/kernel-call.js';
import type { BoundKernel } from '../model/kernel-set.js';
import { isDynamicRef } from '../model/prepare-plans.js';
import { type BoundOutput, checkBound, deviceViews, isDeviceTensor } from '../run/device-tensor.js';
import { type RegionBases, copyTensor, tensorAt } from '../run/device-tensors.js';
import type { Deadline } from '../run/deadline.js';
import { inferOutputsCached } from '../run/cached-inference.js';
import { checkInferredOutput, inferOutputs } from '../run/infer-outputs.js';
import { kernelError, kernelFailure } from '../run/kernel-failure.js';
import { runRefCall } from '../run/ref-call.js';
import { type CallConstants, type CallHandlers, withCallContext } from './call-contexts.js';
import { createLastUse, valueKey } from './last-use.js';

export interface HostModel {
  readonly graph: Graph;
  readonly nodes: ReadonlyMap<string, Node>;
  readonly registry: KernelRegistry;
  readonly bound: ReadonlyMap<KernelCall, BoundKernel>;
  /**
   * The device (or, on a worker, what its context offers): views of its memory, its run loop, and
   * `scratch` for run-time-shaped tensors when the memory is shared (else they live on the JS heap).
   */
  readonly device: Pick<DeviceV1, 'memory' | 'shared' | 'scratch' | 'view' | 'runStreams' | 'runStreamsSync'>;
  /** The coded error when `scratch` is a bounded arena that cannot hold `bytes` more (a worker's). */
  readonly scratchFull?: (where: Pick<KernelCall, 'node' | 'opType' | 'domain'>, output: number, bytes: number) => Error;
}

export type TaskObserver = (call: KernelCall, streamId: number, start: number, end: number) => void;

export interface HostRunInput {
  readonly bases: RegionBases;
  /** Model inputs in order. */
  readonly inputs: readonly RuntimeValue[];
  /** Called after each kernel with its start and end (ms, `performance.now()`). */
  readonly observe?: TaskObserver;
  /** Checked before each task and each subgraph node (`RunOptions.timeoutMs`). */
  readonly deadline?: Deadline;
  /** Intra-op parallelism for kernels whose tensors are in device memory (a worker's tile pool). */
  readonly parallel?: ParallelRunnerV1;
  /**
   * Device tensors bound to graph outputs, by output index (`RunOptions.outputs`): a kernel output
   * with a run-time place is given the bound tensor itself (so a kernel can write in place), other
   * outputs are copied into it; the result holds the bound tensor, not a copy.
   */
  readonly outputs?: readonly (BoundOutput | undefined)[];
}

/**
 * Host mode: the calling thread dispatches task by task, in stream order with events, yielding to
 * the event loop between slices. Values flow along the graph's edges, so outputs whose shape is
 * known only now (region 'dynamic') get memory when the kernel asks for it: from the device's
 * caching allocator when memory is shared (views survive growth), else on the JS heap. Planned
 * outputs land at their planned offsets; a planned place that is too small is an error.
 */
export async function runOnHost(model: HostModel, plan: PreparedPlan, input: HostRunInput): Promise<RuntimeValue[]> {
  return hostRun(model, plan, input, (streams, events, launch) => model.device.runStreams(streams, events, launch));
}

/**
 * Host mode without yielding: the same dispatch, returning when the run is done (the event loop
 * waits meanwhile). For synchronous APIs; the deadline is still checked before every task.
 */
export function runOnHostSync(model: HostModel, plan: PreparedPlan, input: HostRunInput): RuntimeValue[] {
  return hostRun(model, plan, input, (streams, events, launch) => model.device.runStreamsSync(streams, events, launch)) as RuntimeValue[];
}

/** The device's run loop: `runStreams` (async) or `runStreamsSync`. */
type StreamDriver = (
  streams: PreparedPlan['streams'],
  events: readonly EventHandle[],
  launch: LaunchV1<KernelCall>,
) => void | Promise<void>;

/** One run: synchronous when `drive` is, else a promise. */
function hostRun(model: HostModel, plan: PreparedPlan, input: HostRunInput, drive: StreamDriver): RuntimeValue[] | Promise<RuntimeValue[]> {
  const { graph, device } = model;
  const { bases, inputs, observe, deadline, parallel } = input;
  const values = new Map<string, RuntimeValue | undefined>();
  const key = valueKey;
  const lastUse = createLastUse(graph, (offset) => device.scratch.free(offset));
  const deviceView = deviceViews(device);
  const output = graph.outputNode();
  // producer output → the device tensor bound to the graph output it feeds
  const boundAt = new Map<string, BoundOutput>();
  input.outputs?.forEach((bound, i) => {
    const peer = output?.inData[i]?.peer;
    if (bound && peer) boundAt.set(key(peer.node, peer.index), bound);
  });

  // graph inputs: planned inputs are copied into the arena, the rest stay JS values
  graph.inputNodes().forEach((node, i) => {
    const value = inputs[i];
    const ref = plan.inputs[i];
    if (isDeviceTensor(value)) {
      // device tensors are read where they are (a KV cache is neither copied nor moved)
      values.set(key(node, 0), deviceView(value));
    } else if (value && isHostTensor(value) && ref && ref.region === 'arena' && !isDynamicRef(ref)) {
      const place = tensorAt(ref, device, bases, value.dims);
      (place.data as Float32Array).set(value.data as Float32Array);
      values.set(key(node, 0), place);
    } else if (value && isHostTensor(value) && value.type !== 'string' && device.shared) {
      // run-time-shaped inputs go to device memory too, so the device's kernels take them
      const count = shapeSize(value.dims) ?? 0;
      const bytes = Math.max(1, count * DTYPE_BYTES[value.type]);
      let offset: number;
      try {
        offset = device.scratch.allocate(bytes);
      } catch (error) {
        const where = { node: node.name, opType: node.type, domain: node.opDesc.domain };
        throw model.scratchFull && isDeviceError(error, 'out-of-memory') ? model.scratchFull(where, 0, bytes) : error;
      }
      lastUse.own(key(node, 0), offset);
      const data = device.view(value.type, offset, count);
      (data as Float32Array).set(value.data as Float32Array);
      values.set(key(node, 0), { type: value.type, dims: [...value.dims], data });
    } else {
      values.set(key(node, 0), value && isHostTensor(value) ? copyTensor(value) : value);
    }
  });

  const constValue = (node: Node): HostTensor | undefined => {
    const value = node.opDesc.attrs.get(ATTR_VALUE);
    if (value?.kind === 'tensor') return value.value;
    const offset = node.opDesc.attrs.get('_weight_offset');
    const desc = value?.kind === 'tensor_desc' ? value.value : node.opDesc.outputDescs[0];
    const count = desc ? shapeSize(desc.shape) : undefined;
    if (offset?.kind !== 'int' || !desc || count === undefined) return undefined;
    return { type: desc.dtype, dims: desc.shape as number[], data: device.view(desc.dtype, bases.weights + offset.value, count) };
  };
  // subgraph bodies run on the one host interpreter: JS values freed by the garbage collector, so a
  // long Loop does not hold device memory; the deadline is checked before every body node
  const subgraphs = {
    kernels: model.registry,
    constValue,
    kernelError: (node: Node, error: unknown) => kernelFailure({ node: node.name, opType: node.type, domain: node.opDesc.domain }, error),
    ...(deadline
      ? {
          beforeNode: (node: Node, sub: Graph) => {
            if (deadline.expired()) throw deadline.error(`in subgraph ${sub.name}, before node ${node.name}`);
          },
        }
      : {}),
  };

  const inputValue = (node: Node, index: number): RuntimeValue | undefined => {
    const peer = node.inData[index]?.peer;
    if (!peer) return undefined;
    const producer = peer.node;
    if (producer.type === CONST) return constValue(producer);
    const k = key(producer, peer.index);
    if (!values.has(k) && producer.type !== DATA)
      throw kernelError(
        { node: node.name, opType: node.type, domain: node.opDesc.domain },
        `input ${index} from ${producer.name} has not been computed`,
      );
    return values.get(k);
  };

  const allocate = (
    call: KernelCall,
    index: number,
    dims: readonly number[],
    dtype: DataType,
    inferred?: readonly (ValueInfo | undefined)[],
  ): HostTensor => {
    const ref = call.outputs[index];
    // run-time shapes follow the op's inference; the kernel decides only data-dependent dims
    if (ref && isDynamicRef(ref)) checkInferredOutput(call, index, inferred?.[index], dims, dtype);
    const count = shapeSize(dims);
    if (count === undefined) throw kernelError(call, `output ${index} has invalid dims ${shapeToString(dims)}`);
    const bytes = count * DTYPE_BYTES[dtype];
    const planned = ref !== undefined && ref.region === 'arena' && !isDynamicRef(ref);
    const bound = planned ? undefined : boundAt.get(`${call.node}\u0000${index}`);
    if (bound) {
      checkBound(bound.name, bound.tensor, dtype, dims);
      return deviceView(bound.tensor);
    }
    if (ref && planned) {
      if (dtype !== ref.dtype || bytes > ref.bytes) {
        throw kernelError(
          call,
          `output ${index} needs ${bytes} bytes of ${dtype} for ${shapeToString(dims)}; the plan gives ${ref.bytes} bytes of ${ref.dtype}`,
        );
      }
      return tensorAt(ref, device, bases, dims);
    }
    if (dtype === 'string' || !device.shared) return createTensor(dtype, dims);
    let offset: number;
    try {
      offset = device.scratch.allocate(Math.max(1, bytes));
    } catch (error) {
      throw model.scratchFull && isDeviceError(error, 'out-of-memory') ? model.scratchFull(call, index, bytes) : error;
    }
    lastUse.own(`${call.node}\u0000${index}`, offset);
    return { type: dtype, dims: [...dims], data: device.view(dtype, offset, count) };
  };

  const aliasesDevice = (t: HostTensor): boolean =>
    ArrayBuffer.isView(t.data) && (t.data.buffer === device.memory.buffer || t.data.buffer instanceof SharedArrayBuffer);
  /**
   * A value a kernel hands over with setOutput may alias memory the plan reuses later (an input's
   * place, say): tensors go to the output's planned place (or fresh memory when it has none), and
   * tensors inside sequences and optionals are copied out of device memory.
   */
  const settle = (call: KernelCall, index: number, value: RuntimeValue, inferred?: readonly (ValueInfo | undefined)[]): RuntimeValue => {
    if (!isHostTensor(value)) {
      const detach = (t: HostTensor): HostTensor => (aliasesDevice(t) ? copyTensor(t) : t);
      if (value.kind === 'sequence') return { ...value, items: value.items.map(detach) };
      const inner = value.value;
      if (inner === undefined) return value;
      if (isHostTensor(inner)) return { kind: 'optional', value: detach(inner) };
      return { kind: 'optional', value: { ...inner, items: inner.items.map(detach) } };
    }
    const ref = call.outputs[index];
    const planned = ref !== undefined && ref.region === 'arena' && !isDynamicRef(ref);
    if (!planned && !boundAt.has(`${call.node}\u0000${index}`) && !aliasesDevice(value)) {
      // a value the kernel made itself (a subgraph's result, say) follows the op's inference too
      if (ref && isDynamicRef(ref)) checkInferredOutput(call, index, inferred?.[index], value.dims, value.type);
      return value;
    }
    const place = allocate(call, index, value.dims, value.type, inferred);
    if (place.data !== value.data) (place.data as Float32Array).set(value.data as Float32Array);
    return place;
  };

  const runCall = (call: KernelCall, streamId: number): void => {
    if (deadline?.expired()) throw deadline.error(`before node ${call.node}`);
    const node = model.nodes.get(call.node) as Node;
    const bound = model.bound.get(call);
    if (!bound) throw kernelError(call, `kernel ${call.kernel} is not bound`);
    if (bound.kind === 'wasm') {
      // generated kernels work on planned places only
      if ([...call.inputs, ...call.outputs].some(isDynamicRef)) throw kernelError(call, 'a generated kernel cannot take run-time shapes');
      runRefCall(call, bound, { views: device, bases, memory: device.memory });
      call.outputs.forEach((ref, i) => {
        values.set(key(node, i), ref.region === 'none' ? undefined : tensorAt(ref, device, bases));
      });
      lastUse.ran(node);
      return;
    }
    const callInputs = node.inData.map((_, i) => inputValue(node, i));
    const attrs = attrReaderOf(call);
    const dynamicOutputs = call.outputs.some(isDynamicRef);
    // ops with subgraphs infer from the bodies they ran, so only once the kernel asks for outputs
    const executed = new Map<string, readonly RuntimeValue[]>();
    const withBodies = [...call.attrs.values()].some((a) => a.kind === 'graph' || a.kind === 'graphs');
    let inferred = dynamicOutputs && !withBodies ? inferOutputsCached(call, attrs, callInputs) : undefined;
    const inferredNow = (): readonly (ValueInfo | undefined)[] | undefined => {
      if (dynamicOutputs && withBodies) inferred = inferOutputs(call, attrs, callInputs, (name) => executed.get(name));
      return inferred;
    };
    const constants: CallConstants = {
      nodeName: call.node,
      opType: call.opType,
      attrs,
      inputCount: formalInputCount(node),
      outputCount: node.outData.length,
      opsetVersion: call.opsetVersion,
      memory: device.memory,
      ...(parallel ? { parallel } : {}),
    };
    const handlers: CallHandlers = {
      input: (i) => callInputs[i],
      tensor(i) {
        const v = callInputs[i];
        if (v !== undefined && !isHostTensor(v)) throw kernelError(call, `input ${i} is a ${v.kind}, expected a tensor`);
        return v;
      },
      output(i, dims, dtype) {
        const t = allocate(call, i, dims, dtype, inferredNow());
        values.set(key(node, i), t);
        return t;
      },
      setOutput(i, value) {
        values.set(key(node, i), settle(call, i, value, inferredNow()));
      },
      runSubgraph: (attrName, subInputs) => {
        const outputs = interpretSubgraph({ owner: node, ownerInputs: callInputs, attrName, inputs: subInputs }, subgraphs);
        executed.set(attrName, outputs);
        return outputs;
      },
    };
    const start = observe ? performance.now() : 0;
    try {
      withCallContext(call, constants, handlers, (context) => bound.kernel.compute(context));
    } catch (error) {
      throw kernelFailure(call, error);
    }
    if (observe) observe(call, streamId, start, performance.now());
    lastUse.ran(node);
  };

  const collect = (): RuntimeValue[] => {
    if (!output) return [];
    return output.inData.map((_, i) => {
      const v = inputValue(output, i);
      if (v === undefined)
        throw kernelError({ node: output.name, opType: output.type, domain: output.opDesc.domain }, `output ${i} has no value`);
      const bound = input.outputs?.[i];
      if (!bound) return copyValue(v);
      // outputs the kernel did not write in place (planned places, graph inputs, constants)
      const { name, tensor } = bound;
      if (!isHostTensor(v)) throw TsgeError.of('TSGE-E4154', { output: name, bound: 'a tensor', actual: `a ${v.kind}` }, { output: name });
      checkBound(name, tensor, v.type, v.dims);
      const view = deviceView(tensor);
      if (view.data !== v.data) (view.data as Float32Array).set(v.data as Float32Array);
      return tensor;
    });
  };
  const free = (): void => {
    lastUse.releaseAll();
  };
  let driven: void | Promise<void>;
  try {
    const streamIds = new Map(plan.streams.map((s) => [s.stream, s.streamId]));
    driven = drive(plan.streams, plan.events, (call, stream) => runCall(call, streamIds.get(stream) ?? stream.id));
  } catch (error) {
    free();
    throw error;
  }
  if (driven instanceof Promise) return driven.then(collect).finally(free);
  try {
    return collect();
  } finally {
    free();
  }
}

// attribute readers per call: attributes never change after load
const attrReaders = new WeakMap<KernelCall, AttrReader>();
function attrReaderOf(call: KernelCall): AttrReader {
  let reader = attrReaders.get(call);
  if (!reader) {
    reader = createAttrReader(call.attrs);
    attrReaders.set(call, reader);
  }
  return reader;
}

/** Copies tensors (and tensors inside sequences/optionals) out of device memory. */
export function copyValue(value: RuntimeValue): RuntimeValue {
  if (isHostTensor(value)) return copyTensor(value);
  if (value.kind === 'sequence') return { ...value, items: value.items.map(copyTensor) };
  return { kind: 'optional', value: value.value === undefined ? undefined : (copyValue(value.value) as HostTensor) };
}
