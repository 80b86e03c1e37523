import type { HostTensor } from '@tsge/metadef';
import { DTYPE_BYTES, TsgeError, createTensor } from '@tsge/metadef';
import type { IoTensorInfo, OmModel } from '@tsge/om';
import type { PreparedPlan } from '../model/kernel-call.js';
import { selectPlan } from '../model/select-plan.js';
import type { LoadModelOptions } from '../options.js';

const OPTION = 'LoadModelOptions.warmUp';

/**
 * Zero inputs for the warm-up runs, or undefined when the model is not warmed.
 * Default (`warmUp` true or absent): the first plan when it is static and every input a numeric
 * tensor. `warmUp: { shapes }`: the plan those shapes select (a gear, or a dynamic plan), each
 * input taking its given shape or, where all its dims are fixed, its own; an input that cannot be
 * warmed so is TSGE-E7002 naming it, since the caller asked for this warm-up.
 */
export function warmUpFeeds(
  plans: readonly PreparedPlan[],
  io: OmModel['ioInfo'],
  option: LoadModelOptions['warmUp'],
  memoryLimit: number,
): Record<string, HostTensor> | undefined {
  if (option === false) return undefined;
  if (option === undefined || option === true) return staticFeeds(plans, io);
  if (typeof option !== 'object' || option === null || typeof option.shapes !== 'object' || option.shapes === null)
    throw bad(OPTION, String(option), 'expected a boolean or { shapes: { <input>: dims } }');
  const shapes = option.shapes;
  for (const name of Object.keys(shapes))
    if (!io.inputs.some((i) => i.name === name))
      throw bad(`${OPTION}.shapes`, name, `the model has no such input (inputs: ${io.inputs.map((i) => i.name).join(', ')})`);
  const feeds: Record<string, HostTensor> = {};
  for (const info of io.inputs) {
    const given = Object.hasOwn(shapes, info.name) ? shapes[info.name] : undefined;
    const dims = warmUpDims(info, given);
    const bytes = dims.reduce((n, d) => n * d, DTYPE_BYTES[info.dtype]);
    if (bytes > memoryLimit)
      throw bad(`${OPTION}.shapes.${info.name}`, `[${dims.join(',')}]`, `${bytes} bytes exceed the device memory limit (${memoryLimit})`);
    define(feeds, info.name, createTensor(info.dtype, dims));
  }
  try {
    selectPlan(
      plans,
      io.inputs,
      io.inputs.map((i) => feeds[i.name] as HostTensor),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw bad(`${OPTION}.shapes`, JSON.stringify(shapes), `no plan of the model takes these shapes: ${reason}`);
  }
  return feeds;
}

/** The dims an input is warmed with: the given ones (checked against the model's), else its fixed ones. */
function warmUpDims(info: IoTensorInfo, given: readonly number[] | undefined): number[] {
  const where = `${OPTION}.shapes.${info.name}`;
  if ((info.kind !== undefined && info.kind !== 'tensor') || info.dtype === 'string')
    throw bad(where, info.kind ?? info.dtype, 'only numeric tensor inputs can be warmed (use warmUp: false)');
  if (given === undefined) {
    if (info.shape.every((d) => typeof d === 'number' && d >= 0)) return info.shape as number[];
    throw bad(where, 'missing', `input ${info.name} has run-time dims [${info.shape.join(',')}]: give its shape`);
  }
  const text = Array.isArray(given) ? `[${given.join(',')}]` : String(given);
  if (!Array.isArray(given) || !given.every((d) => Number.isSafeInteger(d) && d >= 0))
    throw bad(where, text, 'expected an array of non-negative integers');
  if (given.length !== info.shape.length) throw bad(where, text, `input ${info.name} has rank ${info.shape.length}`);
  info.shape.forEach((d, i) => {
    if (typeof d === 'number' && d >= 0 && given[i] !== d)
      throw bad(where, text, `dim ${i} of input ${info.name} is fixed at ${d} ([${info.shape.join(',')}])`);
  });
  return [...given];
}

/** The default warm-up: the first plan, when it is static and every input a numeric tensor. */
function staticFeeds(plans: readonly PreparedPlan[], io: OmModel['ioInfo']): Record<string, HostTensor> | undefined {
  const plan = plans[0];
  if (!plan || plan.dynamic) return undefined;
  const feeds: Record<string, HostTensor> = {};
  for (const [i, ref] of plan.inputs.entries()) {
    const info = io.inputs[i];
    if (!info || (info.kind !== undefined && info.kind !== 'tensor') || ref.dtype === 'string') return undefined;
    if (!ref.shape.every((d) => typeof d === 'number' && d >= 0)) return undefined;
    define(feeds, info.name, createTensor(ref.dtype, ref.shape as number[]));
  }
  return feeds;
}

// an input may be named like an Object.prototype member: define, never assign
function define(feeds: Record<string, HostTensor>, name: string, tensor: HostTensor): void {
  Object.defineProperty(feeds, name, { value: tensor, enumerable: true, writable: true, configurable: true });
}

const bad = (option: string, value: string, reason: string): TsgeError => TsgeError.of('TSGE-E7002', { option, value, reason });
