import type { HostTensor } from '@tsge/metadef';
import { createTensor } from '@tsge/metadef';
import type { OmModel } from '@tsge/om';
import type { PreparedPlan } from '../model/kernel-call.js';

/**
 * Zero inputs for a warm-up run of the first plan, or undefined when the model is not warmed: a
 * plan with run-time shapes, or an input that is not a numeric tensor.
 */
export function warmUpFeeds(plans: readonly PreparedPlan[], io: OmModel['ioInfo']): Record<string, HostTensor> | undefined {
  const plan = plans[0];
  if (!plan || plan.dynamic) return undefined;
  const feeds: Record<string, HostTensor> = {};
  for (const [i, ref] of plan.inputs.entries()) {
    const info = io.inputs[i];
    if (!info || (info.kind !== undefined && info.kind !== 'tensor') || ref.dtype === 'string') return undefined;
    if (!ref.shape.every((d) => typeof d === 'number' && d >= 0)) return undefined;
    Object.defineProperty(feeds, info.name, {
      value: createTensor(ref.dtype, ref.shape as number[]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return feeds;
}
