import type { DeviceWorkersV1, RuntimeValue } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';
import type { PreparedPlan } from '../model/kernel-call.js';
import type { Deadline } from '../run/deadline.js';
import type { BoundOutput } from '../run/device-tensor.js';
import { type ControlLayout, DOORBELL, SLOT, slotWord } from './control-block.js';
import { type DynamicJob, type SinkWorkerMessage, type TaskTiming, driverOf } from './sink-protocol.js';

/** Which worker runs which stream: streams in order, dealt round robin. */
export function assignStreams(plan: PreparedPlan, workers: number): number[][] {
  const byWorker: number[][] = Array.from({ length: workers }, () => []);
  for (let i = 0; i < plan.streams.length; i++) byWorker[i % workers]?.push(i);
  return byWorker;
}

/** Timings one worker reported for one run. */
export interface WorkerTimings {
  readonly worker: number;
  readonly timings: readonly TaskTiming[];
}
type Received = { readonly worker: number; readonly message: SinkWorkerMessage };

/**
 * The calling side of sink mode: a run is a few stores, one `Atomics.notify` on the doorbell and
 * one `Atomics.waitAsync` on the slot's done word, so the event loop stays free meanwhile.
 */
export function createSinkDispatcher(options: {
  pool: DeviceWorkersV1;
  words: () => Int32Array;
  layout: ControlLayout;
  /** Per plan: how many workers have streams in it. */
  participants: readonly number[];
  profile: boolean;
}) {
  const { pool, layout } = options;
  let generation = 0;
  const pending = new Map<string, { messages: Received[]; wake?: () => void }>();
  const keyOf = (slot: number, gen: number): string => `${slot}:${gen}`;
  pool.onMessage((workerIndex, message) => {
    const m = message as SinkWorkerMessage;
    const entry = pending.get(keyOf(m.slot, m.generation));
    if (!entry) return;
    entry.messages.push({ worker: workerIndex, message: m });
    entry.wake?.();
  });
  let failure: { worker: number | string; reason: string } | undefined;
  /** Set when the pool is being replaced: waiters throw only once the old workers are gone. */
  let stopped: Promise<void> | undefined;
  const failed = (): TsgeError => TsgeError.of('TSGE-E6009', { worker: failure?.worker ?? '?', reason: failure?.reason ?? 'stopped' });
  pool.onFailure((index, reason) => {
    failure = { worker: index, reason };
    for (const entry of pending.values()) entry.wake?.();
  });

  async function messagesFor(key: string, enough: (messages: Received[]) => boolean): Promise<Received[]> {
    const entry = pending.get(key);
    if (!entry) return [];
    while (!enough(entry.messages) && failure === undefined) await new Promise<void>((resolve) => (entry.wake = resolve));
    return entry.messages;
  }

  return {
    /** Runs a job; a dynamic plan's `inputs` go to its driver worker, which sends the outputs back. */
    async run(
      slot: number,
      plan: PreparedPlan,
      deadline?: Deadline,
      inputs?: readonly RuntimeValue[],
      bound?: readonly (BoundOutput | undefined)[],
    ): Promise<{ timings: WorkerTimings[]; outputs?: readonly RuntimeValue[] }> {
      if (failure !== undefined) throw failed();
      const words = options.words();
      const gen = ++generation;
      const key = keyOf(slot, gen);
      pending.set(key, { messages: [] });
      const participants = options.participants[plan.index] ?? 0;
      try {
        if (participants > 0) {
          // posted before the doorbell: the driver takes it without waiting once it sees the job
          if (inputs)
            pool.post(driverOf(slot, pool.size), {
              slot,
              generation: gen,
              inputs,
              ...(bound ? { outputs: bound } : {}),
            } satisfies DynamicJob);
          Atomics.store(words, slotWord(layout, slot, SLOT.plan), plan.index);
          Atomics.store(words, slotWord(layout, slot, SLOT.remaining), participants);
          Atomics.store(words, slotWord(layout, slot, SLOT.error), 0);
          Atomics.store(words, slotWord(layout, slot, SLOT.generation), gen);
          Atomics.add(words, DOORBELL, 1);
          Atomics.notify(words, DOORBELL);
          const doneWord = slotWord(layout, slot, SLOT.done);
          for (;;) {
            const seen = Atomics.load(words, doneWord);
            if (seen === gen) break;
            if (failure !== undefined) {
              await stopped;
              throw failed();
            }
            // the executor replaces the workers, which may still be running this job
            if (deadline?.expired()) throw deadline.error('waiting for the worker threads');
            // a bound on each wait lets a dead worker (or the deadline) be noticed
            const bound = deadline ? Math.max(1, Math.min(1000, Math.ceil(deadline.at - performance.now()))) : 1000;
            await pool.waitAsync(words, doneWord, seen, bound);
          }
          if (Atomics.load(words, slotWord(layout, slot, SLOT.error)) !== 0) {
            const messages = await messagesFor(key, (ms) => ms.some((r) => r.message.type === 'error'));
            const error = messages.map((r) => r.message).find((m) => m.type === 'error');
            if (error?.type === 'error') throw new TsgeError(error.code, error.message);
            throw failed();
          }
        }
        const want = (ms: Received[]): boolean =>
          (!options.profile || ms.filter((r) => r.message.type === 'profile').length >= participants) &&
          (!inputs || ms.some((r) => r.message.type === 'result'));
        if ((!options.profile && !inputs) || participants === 0) return { timings: [] };
        const received = await messagesFor(key, want);
        const result = received.map((r) => r.message).find((m) => m.type === 'result');
        if (inputs && result?.type !== 'result') throw failed();
        const timings = received.flatMap((r) => (r.message.type === 'profile' ? [{ worker: r.worker, timings: r.message.timings }] : []));
        return { timings, ...(result?.type === 'result' ? { outputs: result.outputs } : {}) };
      } finally {
        pending.delete(key);
      }
    },
    /**
     * Fails every run waiting on these workers (with TSGE-E6009 naming `reason`) once `terminated`
     * settles: the pool is being replaced.
     */
    abandon(reason: string, terminated: Promise<void>): void {
      failure = { worker: 'all', reason };
      stopped = terminated.catch(() => {});
      const words = options.words();
      for (let slot = 0; slot < layout.slotCount; slot++) Atomics.notify(words, slotWord(layout, slot, SLOT.done));
      for (const entry of pending.values()) entry.wake?.();
    },
  };
}

export type SinkDispatcher = ReturnType<typeof createSinkDispatcher>;
