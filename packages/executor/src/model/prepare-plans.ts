import type { AttrValue, Diagnostic, Graph, Node } from '@tsge/metadef';
import {
  DTYPE_BYTES,
  ONNX_DOMAIN,
  TSGE_DOMAIN,
  attr,
  diagnostic,
  encodeKernelDescription,
  isDataType,
  isStaticShape,
  opsetOf,
  shapeSize,
} from '@tsge/metadef';
import { FUSED_ELEMENTWISE } from '@tsge/ops';
import type { OmModel, Task, TensorRef } from '@tsge/om';
import type { CallTask, KernelCall, PlanDraft, PlanStream } from './kernel-call.js';

const MAX_EVENTS = 1 << 16;

/** True when a tensor is not placed by the memory plan (host mode decides its memory at run time). */
export function isDynamicRef(ref: TensorRef): boolean {
  return ref.region === 'dynamic' || ref.dtype === 'string' || !isStaticShape(ref.shape);
}

/**
 * Checks every plan of a model against the graph and the memory layout, and resolves each kernel
 * task to a `KernelCall`. A model file is untrusted: a reference outside its region or an event id
 * outside the plan is a diagnostic, never a read out of bounds later.
 */
export function preparePlans(model: OmModel, nodes: () => ReadonlyMap<string, Node>): { plans: PlanDraft[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const plans: PlanDraft[] = [];
  const report = (reason: string, node?: string): void => {
    diagnostics.push(diagnostic('TSGE-E2006', { format: 'om', reason }, node !== undefined ? { node } : undefined));
  };
  if (model.taskInfo.plans.length === 0) report('TASK_INFO has no execution plan');
  model.taskInfo.plans.forEach((plan, planIndex) => {
    let dynamic = model.taskInfo.dynamic;
    const checkRef = (ref: TensorRef | undefined, what: string, node?: string): boolean => {
      if (!ref || typeof ref !== 'object') {
        report(`plan ${planIndex}: ${what} has no tensor reference`, node);
        return false;
      }
      if (!isDataType(ref.dtype)) {
        report(`plan ${planIndex}: ${what} has unknown dtype ${String(ref.dtype)}`, node);
        return false;
      }
      if (!Array.isArray(ref.shape)) {
        report(`plan ${planIndex}: ${what} has no shape`, node);
        return false;
      }
      if (ref.region === 'none') return true;
      if (isDynamicRef(ref)) {
        dynamic = true;
        return true;
      }
      const size = ref.region === 'arena' ? plan.arenaBytes : ref.region === 'weights' ? model.weights.byteLength : -1;
      if (size < 0) {
        report(`plan ${planIndex}: ${what} names unknown region ${String(ref.region)}`, node);
        return false;
      }
      const elementBytes = DTYPE_BYTES[ref.dtype];
      const needed = (shapeSize(ref.shape) ?? 0) * elementBytes;
      const fits =
        Number.isInteger(ref.offset) &&
        Number.isInteger(ref.bytes) &&
        ref.offset >= 0 &&
        ref.bytes >= needed &&
        ref.offset + needed <= size;
      if (!fits) {
        report(
          `plan ${planIndex}: ${what} (${needed} bytes at ${ref.region} offset ${ref.offset}, ${ref.bytes} planned) leaves its region of ${size} bytes`,
          node,
        );
        return false;
      }
      if (elementBytes > 0 && ref.offset % Math.min(elementBytes, 8) !== 0) {
        report(`plan ${planIndex}: ${what} at offset ${ref.offset} is not aligned for ${ref.dtype}`, node);
        return false;
      }
      return true;
    };
    if (!Number.isInteger(plan.eventCount) || plan.eventCount < 0 || plan.eventCount > MAX_EVENTS) {
      report(`plan ${planIndex}: event count ${plan.eventCount} is invalid`);
      return;
    }
    if (!Number.isInteger(plan.arenaBytes) || plan.arenaBytes < 0) {
      report(`plan ${planIndex}: arena size ${plan.arenaBytes} is invalid`);
      return;
    }
    for (const [i, ref] of plan.inputs.entries()) checkRef(ref, `input ${i}`);
    for (const [i, ref] of plan.outputs.entries()) checkRef(ref, `output ${i}`);
    if (plan.inputs.length !== model.ioInfo.inputs.length || plan.outputs.length !== model.ioInfo.outputs.length) {
      report(
        `plan ${planIndex}: has ${plan.inputs.length} inputs and ${plan.outputs.length} outputs; IO_INFO has ${model.ioInfo.inputs.length} and ${model.ioInfo.outputs.length}`,
      );
    }
    const streams: PlanStream[] = [];
    const seenStreams = new Set<number>();
    for (const stream of plan.streams) {
      if (seenStreams.has(stream.id)) report(`plan ${planIndex}: stream ${stream.id} appears twice`);
      seenStreams.add(stream.id);
      const tasks: CallTask[] = [];
      for (const task of stream.tasks) {
        const call = prepareTask(task, planIndex, plan.eventCount, nodes, report, checkRef);
        if (call) tasks.push(call.kind === 'kernel' ? { kind: 'kernel', kernel: withDescription(call.kernel, model, diagnostics) } : call);
      }
      streams.push({ streamId: stream.id, tasks });
    }
    const stuck = unfinishedEvents(streams);
    if (stuck.length > 0)
      report(`plan ${planIndex}: streams wait on events ${stuck.join(', ')} that are never recorded before them (deadlock)`);
    for (const io of [...model.ioInfo.inputs, ...model.ioInfo.outputs]) if (io.kind && io.kind !== 'tensor') dynamic = true;
    plans.push({
      index: planIndex,
      gear: plan.gear,
      arenaBytes: plan.arenaBytes,
      eventCount: plan.eventCount,
      streams,
      inputs: plan.inputs,
      outputs: plan.outputs,
      dynamic,
    });
  });
  return { plans, diagnostics };
}

/**
 * A generated-kernel call (a FusedElementwise, or a FusedConv with an epilogue: any tsge-domain call
 * with attribute `kernel`) gets its description from the model's KERNELS (validated on read) as
 * attribute `description`, so every thread's kernel finds it in the call alone.
 */
function withDescription(call: KernelCall, model: OmModel, diagnostics: Diagnostic[]): KernelCall {
  const index = call.attrs.get('kernel');
  if (call.domain !== TSGE_DOMAIN || (index === undefined && call.opType !== FUSED_ELEMENTWISE)) return call;
  const descriptions = model.kernelDescriptions ?? [];
  const d = index?.kind === 'int' && Number.isInteger(index.value) ? descriptions[index.value] : undefined;
  if (!d) {
    const kernel = index?.kind === 'int' ? String(index.value) : '(no kernel attribute)';
    diagnostics.push(diagnostic('TSGE-E7102', { node: call.node, kernel, count: descriptions.length }, { node: call.node }));
    return call;
  }
  const attrs = new Map(call.attrs);
  attrs.set('description', attr.ints(Array.from(encodeKernelDescription(d))));
  return { ...call, attrs };
}

function prepareTask(
  task: Task,
  planIndex: number,
  eventCount: number,
  nodes: () => ReadonlyMap<string, Node>,
  report: (reason: string, node?: string) => void,
  checkRef: (ref: TensorRef | undefined, what: string, node?: string) => boolean,
): CallTask | undefined {
  if (task.kind === 'record' || task.kind === 'wait') {
    if (!Number.isInteger(task.event) || task.event < 0 || task.event >= eventCount) {
      report(`plan ${planIndex}: ${task.kind} of event ${task.event} outside 0..${eventCount - 1}`);
      return undefined;
    }
    return { kind: task.kind, event: task.event };
  }
  if (task.kind !== 'kernel') {
    report(`plan ${planIndex}: unknown task kind ${String((task as { kind: unknown }).kind)}`);
    return undefined;
  }
  // the task's own attributes when it carries them, else its node's (decodes MODEL_DEF once)
  const node = task.attrs ? undefined : nodes().get(task.node);
  if (!task.attrs && !node) {
    report(`plan ${planIndex}: task names node ${task.node}, which is not in the graph`, task.node);
    return undefined;
  }
  let ok = true;
  task.inputs.forEach((ref, i) => {
    ok = checkRef(ref, `input ${i} of ${task.node}`, task.node) && ok;
  });
  task.outputs.forEach((ref, i) => {
    ok = checkRef(ref, `output ${i} of ${task.node}`, task.node) && ok;
  });
  if (task.workspace) ok = checkRef(task.workspace, `workspace of ${task.node}`, task.node) && ok;
  if (!ok) return undefined;
  const first = task.inputs.find((ref) => ref.region !== 'none');
  const call: KernelCall = {
    node: task.node,
    opType: task.opType,
    domain: task.domain,
    kernel: task.kernel,
    attrs: node ? node.opDesc.attrs : new Map(Object.entries(task.attrs ?? {}) as [string, AttrValue][]),
    opsetVersion: node ? opsetOf(node) : (task.opset ?? 0),
    inputs: task.inputs,
    outputs: task.outputs,
    ...(task.workspace ? { workspace: task.workspace } : {}),
    inputDtype: first?.dtype,
  };
  return { kind: 'kernel', kernel: placedView(call) ? { ...call, placedView: true } : call };
}

/** Ops whose output holds input 0's elements in the same order under other dims. */
const VIEW_OPS: ReadonlySet<string> = new Set(['Reshape', 'Flatten', 'Squeeze', 'Unsqueeze']);

const staticArena = (ref: TensorRef | undefined): ref is TensorRef => ref?.region === 'arena' && !isDynamicRef(ref);
const refBytes = (ref: TensorRef): number => (shapeSize(ref.shape) ?? -1) * DTYPE_BYTES[ref.dtype];

/**
 * Whether a (checked) call only renames bytes already in place, so planned runs skip it and its
 * per-call cost: an ONNX view op whose single output the plan put on exactly the bytes of input 0,
 * or a Concat whose inputs the plan put one after another over its output (its producers wrote
 * the output; along an axis with only dims of 1 before it, that is the concatenation).
 */
function placedView(call: KernelCall): boolean {
  if (call.domain !== ONNX_DOMAIN || call.outputs.length !== 1) return false;
  const y = call.outputs[0];
  if (!staticArena(y) || refBytes(y) <= 0) return false;
  if (VIEW_OPS.has(call.opType)) {
    const x = call.inputs[0];
    return staticArena(x) && x.offset === y.offset && x.dtype === y.dtype && refBytes(x) === refBytes(y);
  }
  if (call.opType !== 'Concat' || call.inputs.length === 0) return false;
  const axis = call.attrs.get('axis');
  if (axis?.kind !== 'int') return false;
  const rank = y.shape.length;
  const a = axis.value < 0 ? axis.value + rank : axis.value;
  if (a < 0 || a >= rank || y.shape.slice(0, a).some((d) => d !== 1)) return false;
  let offset = y.offset;
  for (const x of call.inputs) {
    if (!staticArena(x) || x.offset !== offset || x.dtype !== y.dtype || x.shape.length !== rank) return false;
    if (x.shape.some((d, i) => i !== a && d !== y.shape[i])) return false;
    offset += refBytes(x);
  }
  return offset === y.offset + refBytes(y);
}

/** Every node of the root graph by name (subgraph nodes run inside their parent's kernel). */
export function nodesByName(graph: Graph): Map<string, Node> {
  const map = new Map<string, Node>();
  for (const node of graph.nodes) map.set(node.name, node);
  return map;
}

/**
 * Plays the streams' record/wait order without running kernels. Returns the events some stream
 * would wait on forever (empty when every stream can finish), so a worker never sleeps on an event
 * that cannot come.
 */
function unfinishedEvents(streams: readonly PlanStream[]): number[] {
  const recorded = new Set<number>();
  const positions = streams.map(() => 0);
  for (;;) {
    let moved = false;
    const waiting: number[] = [];
    streams.forEach((stream, s) => {
      let position = positions[s] as number;
      for (; position < stream.tasks.length; position++) {
        const task = stream.tasks[position] as CallTask;
        if (task.kind === 'wait' && !recorded.has(task.event)) {
          waiting.push(task.event);
          break;
        }
        if (task.kind === 'record') recorded.add(task.event);
        moved = true;
      }
      positions[s] = position;
    });
    if (waiting.length === 0 || !moved) return waiting;
  }
}
