import type { RuntimeValue } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';
import type { OmModel } from '@tsge/om';
import { checkFeeds } from '../feeds.js';
import { type HostModel, type TaskObserver, runOnHostSync } from '../host/host-runner.js';
import type { PreparedPlan } from '../model/kernel-call.js';
import { selectPlan } from '../model/select-plan.js';
import type { Feed, RunSyncOptions } from '../options.js';
import type { SlotPool } from '../slot-pool.js';
import { createDeadline } from './deadline.js';
import { asRunError } from './kernel-failure.js';

export interface SyncRunParts {
  readonly model: OmModel;
  readonly plans: readonly PreparedPlan[];
  readonly slots: SlotPool;
  readonly slotCount: number;
  readonly hostModel: HostModel;
  readonly weightsBase: number;
  readonly arenaBases: readonly number[];
  readonly memoryLimit: number;
}

/**
 * `Executor.runSync`: the host-mode dispatch on the calling thread, start to end, in a free arena.
 * It cannot wait, so with every arena taken by asynchronous runs it fails (TSGE-E8312) instead
 * of queueing; it uses no workers, whatever the executor's mode.
 */
export function runSyncOnHost(
  parts: SyncRunParts,
  feeds: Readonly<Record<string, Feed>>,
  options: RunSyncOptions,
  observe: TaskObserver | undefined,
): RuntimeValue[] {
  const mode = (options as { mode?: unknown }).mode;
  if (mode !== undefined && mode !== 'host') {
    throw TsgeError.of('TSGE-E7002', {
      option: 'RunOptions.mode',
      value: JSON.stringify(mode) ?? String(mode),
      reason: 'runSync runs on the calling thread (host mode) only',
    });
  }
  if ((options as { outputs?: unknown }).outputs !== undefined) {
    throw TsgeError.of('TSGE-E7002', {
      option: 'RunOptions.outputs',
      value: 'device tensors',
      reason: 'runSync does not bind outputs to device tensors; use run',
    });
  }
  const deadline = createDeadline(options.timeoutMs);
  const inputs = checkFeeds(feeds, parts.model.ioInfo.inputs, parts.memoryLimit);
  const plan = selectPlan(parts.plans, parts.model.ioInfo.inputs, inputs);
  const slot = parts.slots.tryAcquire();
  if (slot === undefined) throw TsgeError.of('TSGE-E8312', { slots: parts.slotCount });
  try {
    return runOnHostSync(parts.hostModel, plan, {
      bases: { weights: parts.weightsBase, arena: parts.arenaBases[slot] as number },
      inputs,
      ...(deadline ? { deadline } : {}),
      ...(observe ? { observe } : {}),
    });
  } catch (error) {
    throw asRunError(error);
  } finally {
    parts.slots.release(slot);
  }
}

/** Outputs by name, defined rather than assigned: an output named '__proto__' stays an output. */
export function namedOutputs(names: readonly string[], outputs: readonly RuntimeValue[]): Record<string, RuntimeValue> {
  const result: Record<string, RuntimeValue> = {};
  names.forEach((name, i) => {
    Object.defineProperty(result, name, { value: outputs[i], enumerable: true, writable: true, configurable: true });
  });
  return result;
}
