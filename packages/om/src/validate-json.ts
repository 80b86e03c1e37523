import { isDataType } from '@tsge/metadef';
import type { ExecutionPlan, IoInfo, IoTensorInfo, StreamInfo, Task, TaskInfo, TensorRef } from './types.js';

/**
 * Structural checks of the JSON partitions. Each returns the first problem as a sentence, or
 * undefined when the value has exactly the shape the executor relies on.
 */
/** A problem found, as a sentence, or undefined when the value is fine. */
export type Check = string | undefined;

const REGIONS = new Set(['arena', 'weights', 'dynamic', 'none']);
const VALUE_KINDS = new Set(['tensor', 'sequence', 'optional']);
const MAX_ITEMS = 10_000_000;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
function isDim(v: unknown): boolean {
  return (typeof v === 'number' && Number.isSafeInteger(v) && v >= -2) || (typeof v === 'string' && v.length > 0 && v.length < 256);
}
function checkArray(v: unknown, what: string): Check {
  if (!Array.isArray(v)) return `${what} is not an array`;
  if (v.length > MAX_ITEMS) return `${what} has too many items`;
  return undefined;
}
function checkShape(v: unknown, what: string): Check {
  return checkArray(v, what) ?? ((v as unknown[]).every(isDim) ? undefined : `${what} has an invalid dim`);
}

export function checkTensorRef(v: unknown, what: string): Check {
  if (!isObject(v)) return `${what} is not an object`;
  if (typeof v.region !== 'string' || !REGIONS.has(v.region)) return `${what}.region is invalid`;
  if (!isCount(v.offset) || !isCount(v.bytes)) return `${what} has an invalid offset or size`;
  if (!isDataType(v.dtype)) return `${what}.dtype is invalid`;
  return checkShape(v.shape, `${what}.shape`);
}

function checkTask(v: unknown, what: string): Check {
  if (!isObject(v)) return `${what} is not an object`;
  if (v.kind === 'record' || v.kind === 'wait') return isCount(v.event) ? undefined : `${what}.event is invalid`;
  if (v.kind !== 'kernel') return `${what}.kind is invalid`;
  for (const key of ['node', 'opType', 'domain', 'kernel'] as const)
    if (typeof v[key] !== 'string') return `${what}.${key} is not a string`;
  for (const key of ['inputs', 'outputs'] as const) {
    const list = v[key];
    const bad = checkArray(list, `${what}.${key}`);
    if (bad) return bad;
    for (let i = 0; i < (list as unknown[]).length; i++) {
      const r = checkTensorRef((list as unknown[])[i], `${what}.${key}[${i}]`);
      if (r) return r;
    }
  }
  if (v.workspace !== undefined) {
    const bad = checkTensorRef(v.workspace, `${what}.workspace`);
    if (bad) return bad;
  }
  if (v.opset !== undefined && !isCount(v.opset)) return `${what}.opset is invalid`;
  if (v.attrs !== undefined) {
    if (!isObject(v.attrs)) return `${what}.attrs is not an object`;
    for (const [name, attr] of Object.entries(v.attrs)) {
      const bad = checkPlainAttr(attr, `${what}.attrs.${name}`);
      if (bad) return bad;
    }
  }
  return undefined;
}

// Maps, not object literals: a kind read from the file ('__proto__', 'constructor', ...) must not
// find an inherited property.
const PLAIN_SCALARS: ReadonlyMap<string, (x: unknown) => boolean> = new Map([
  ['int', (x: unknown) => Number.isSafeInteger(x)],
  ['float', (x: unknown) => typeof x === 'number' && Number.isFinite(x)],
  ['string', (x: unknown) => typeof x === 'string'],
  ['dtype', (x: unknown) => isDataType(x)],
  ['bool', (x: unknown) => typeof x === 'boolean'],
]);
const PLAIN_LISTS: ReadonlyMap<string, string> = new Map([
  ['ints', 'int'],
  ['floats', 'float'],
  ['strings', 'string'],
  ['dtypes', 'dtype'],
  ['bools', 'bool'],
]);

function checkPlainAttr(v: unknown, what: string): Check {
  if (!isObject(v) || typeof v.kind !== 'string') return `${what} is not an attribute`;
  const scalar = PLAIN_SCALARS.get(v.kind);
  if (scalar) return scalar(v.value) ? undefined : `${what} has an invalid ${v.kind} value`;
  const element = PLAIN_LISTS.get(v.kind);
  if (!element) return `${what} has kind ${JSON.stringify(v.kind)}, which a task cannot carry`;
  const check = PLAIN_SCALARS.get(element) as (x: unknown) => boolean;
  if (!Array.isArray(v.value)) return `${what} has an invalid ${v.kind} value`;
  if (v.value.length > MAX_ITEMS) return `${what} has too many items`;
  return v.value.every(check) ? undefined : `${what} has an invalid ${v.kind} value`;
}

function checkStream(v: unknown, what: string): Check {
  if (!isObject(v)) return `${what} is not an object`;
  if (!isCount(v.id)) return `${what}.id is invalid`;
  const bad = checkArray(v.tasks, `${what}.tasks`);
  if (bad) return bad;
  const tasks = v.tasks as unknown[];
  for (let i = 0; i < tasks.length; i++) {
    const r = checkTask(tasks[i], `${what}.tasks[${i}]`);
    if (r) return r;
  }
  return undefined;
}

function checkPlan(v: unknown, what: string): Check {
  if (!isObject(v)) return `${what} is not an object`;
  if (v.gear !== null) {
    if (!isObject(v.gear)) return `${what}.gear is invalid`;
    for (const [name, shape] of Object.entries(v.gear)) {
      const r = checkShape(shape, `${what}.gear.${name}`);
      if (r) return r;
    }
  }
  if (!isCount(v.arenaBytes) || !isCount(v.eventCount)) return `${what} has an invalid arena size or event count`;
  const memory = v.memory;
  if (!isObject(memory) || !['arenaBytes', 'noReuseBytes', 'lowerBoundBytes', 'weightsBytes'].every((k) => isCount(memory[k])))
    return `${what}.memory is invalid`;
  for (const key of ['inputs', 'outputs'] as const) {
    const list = v[key];
    const bad = checkArray(list, `${what}.${key}`);
    if (bad) return bad;
    for (let i = 0; i < (list as unknown[]).length; i++) {
      const r = checkTensorRef((list as unknown[])[i], `${what}.${key}[${i}]`);
      if (r) return r;
    }
  }
  const bad = checkArray(v.streams, `${what}.streams`);
  if (bad) return bad;
  const streams = v.streams as unknown[];
  for (let i = 0; i < streams.length; i++) {
    const r = checkStream(streams[i], `${what}.streams[${i}]`);
    if (r) return r;
  }
  return undefined;
}

export function checkTaskInfo(v: unknown): Check {
  if (!isObject(v)) return 'TASK_INFO is not an object';
  if (v.version !== 1) return `TASK_INFO version ${String(v.version)} is not 1`;
  if (typeof v.dynamic !== 'boolean') return 'TASK_INFO.dynamic is not a boolean';
  const bad = checkArray(v.plans, 'TASK_INFO.plans');
  if (bad) return bad;
  const plans = v.plans as unknown[];
  if (plans.length === 0) return 'TASK_INFO has no plan';
  for (let i = 0; i < plans.length; i++) {
    const r = checkPlan(plans[i], `plans[${i}]`);
    if (r) return r;
  }
  return undefined;
}

function checkIoTensor(v: unknown, what: string): Check {
  if (!isObject(v)) return `${what} is not an object`;
  if (typeof v.name !== 'string') return `${what}.name is not a string`;
  if (!isDataType(v.dtype)) return `${what}.dtype is invalid`;
  if (v.kind !== undefined && !(typeof v.kind === 'string' && VALUE_KINDS.has(v.kind))) return `${what}.kind is invalid`;
  return checkShape(v.shape, `${what}.shape`);
}

export function checkIoInfo(v: unknown): Check {
  if (!isObject(v)) return 'IO_INFO is not an object';
  if (v.version !== 1) return `IO_INFO version ${String(v.version)} is not 1`;
  for (const key of ['inputs', 'outputs'] as const) {
    const list = v[key];
    const bad = checkArray(list, `IO_INFO.${key}`);
    if (bad) return bad;
    for (let i = 0; i < (list as unknown[]).length; i++) {
      const r = checkIoTensor((list as unknown[])[i], `IO_INFO.${key}[${i}]`);
      if (r) return r;
    }
  }
  return undefined;
}

/** Region bounds and event ids of a structurally valid plan. */
export function checkPlanBounds(plan: ExecutionPlan, weightsBytes: number, index: number): Check {
  const within = (ref: TensorRef, what: string): Check => {
    if (ref.region === 'arena' && ref.offset + ref.bytes > plan.arenaBytes) return `${what} lies outside the arena of plan ${index}`;
    if (ref.region === 'weights' && ref.offset + ref.bytes > weightsBytes) return `${what} lies outside the weights`;
    return undefined;
  };
  for (const [i, r] of plan.inputs.entries()) {
    const bad = within(r, `input ${i}`);
    if (bad) return bad;
  }
  for (const [i, r] of plan.outputs.entries()) {
    const bad = within(r, `output ${i}`);
    if (bad) return bad;
  }
  for (const stream of plan.streams as StreamInfo[]) {
    for (const task of stream.tasks as Task[]) {
      if (task.kind !== 'kernel') {
        if (task.event >= plan.eventCount)
          return `event ${task.event} of stream ${stream.id} is not below the event count ${plan.eventCount}`;
        continue;
      }
      const refs = [...task.inputs, ...task.outputs, ...(task.workspace ? [task.workspace] : [])];
      for (const r of refs) {
        const bad = within(r, `a tensor of node ${task.node}`);
        if (bad) return bad;
      }
    }
  }
  return undefined;
}

/**
 * Whether a plan's inputs and outputs are the ones IO_INFO describes: the same count, and for
 * tensors a place (not region none), the same dtype and, in the arena, the same rank, with IO_INFO's fixed dims (gears leave the
 * varying ones -1) equal to the plan's. Feeds are checked against IO_INFO and then copied into the
 * plan's places, so the two must agree before anything is copied.
 */
export function checkPlanIo(plan: ExecutionPlan, ioInfo: IoInfo, index: number): Check {
  for (const [side, refs, infos] of [
    ['input', plan.inputs, ioInfo.inputs],
    ['output', plan.outputs, ioInfo.outputs],
  ] as const) {
    if (refs.length !== infos.length) return `plan ${index} has ${refs.length} ${side}s; IO_INFO describes ${infos.length}`;
    for (const [i, ref] of refs.entries()) {
      const info = infos[i] as IoTensorInfo;
      if (info.kind !== undefined && info.kind !== 'tensor') continue;
      const what = `${side} ${JSON.stringify(info.name)} of plan ${index}`;
      // a model input or output is always written or read, so it needs a place
      if (ref.region === 'none') return `${what} has no place in memory (region none)`;
      if (ref.dtype !== info.dtype) return `${what} has dtype ${ref.dtype}; IO_INFO says ${info.dtype}`;
      if (ref.region !== 'arena') continue;
      if (ref.shape.length !== info.shape.length) return `${what} has rank ${ref.shape.length}; IO_INFO says ${info.shape.length}`;
      for (const [d, dim] of info.shape.entries()) {
        if (typeof dim === 'number' && dim >= 0 && ref.shape[d] !== dim)
          return `${what} has dims ${JSON.stringify(ref.shape)}; IO_INFO says ${JSON.stringify(info.shape)}`;
      }
    }
  }
  return undefined;
}

export type { IoInfo, IoTensorInfo, TaskInfo };
