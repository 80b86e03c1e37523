import { type AttrReader, type AttrValue, createAttrReader, windowAttrsProblem } from '@tsge/metadef';
import type { ExecutionPlan, Task, TensorRef } from './types.js';

type KernelTask = Extract<Task, { kind: 'kernel' }>;

const shapeOf = (ref: TensorRef): TensorRef['shape'] | undefined => (ref.region === 'none' ? undefined : ref.shape);

/**
 * Applies metadef's attribute rules (the ones shape inference applies in the compiler) to one
 * kernel task, with the shapes its tensor references give; `attrs` defaults to what the task carries.
 */
export function taskAttrsProblem(task: KernelTask, attrs?: AttrReader): string | undefined {
  const reader = attrs ?? (task.attrs ? createAttrReader(new Map(Object.entries(task.attrs) as [string, AttrValue][])) : undefined);
  if (!reader) return undefined;
  const inputs = task.inputs.map(shapeOf);
  const problem = windowAttrsProblem(task.opType, reader, { x: inputs[0], inputs });
  return problem === undefined ? undefined : `node ${task.node} (${task.opType}): ${problem}`;
}

/** The first task of a plan whose carried attributes break the rules, as a sentence. */
export function planAttrsProblem(plan: ExecutionPlan): string | undefined {
  for (const stream of plan.streams)
    for (const task of stream.tasks) {
      if (task.kind !== 'kernel') continue;
      const problem = taskAttrsProblem(task);
      if (problem) return problem;
    }
  return undefined;
}
