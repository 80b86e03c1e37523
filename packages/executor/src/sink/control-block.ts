/**
 * Int32 words in shared memory through which the calling thread and the workers talk during a run
 * (no messages on the hot path):
 *   [0] doorbell: bumped for every new job (workers sleep on it)   [1] shutdown flag
 *   per slot (one per concurrent run): generation, plan, remaining workers, done generation,
 *   error flag, then the slot's event table.
 */
export const DOORBELL = 0;
export const SHUTDOWN = 1;
const HEADER_WORDS = 2;
export const SLOT = { generation: 0, plan: 1, remaining: 2, done: 3, error: 4, events: 5 } as const;

export interface ControlLayout {
  readonly slotCount: number;
  readonly eventCount: number;
  readonly slotWords: number;
  readonly totalWords: number;
}

/** `eventWords` is the device's (`DeviceV1.eventWords`): the event tables live in these words. */
export function controlLayout(slotCount: number, eventCount: number, eventWords: (count: number) => number): ControlLayout {
  const slotWords = SLOT.events + eventWords(eventCount);
  return { slotCount, eventCount, slotWords, totalWords: HEADER_WORDS + slotCount * slotWords };
}

/** Index of word `field` of `slot`. */
export function slotWord(layout: ControlLayout, slot: number, field: number): number {
  return HEADER_WORDS + slot * layout.slotWords + field;
}

/** Tells the workers to leave their loop: at once if waiting, else before the next job or at their first look. */
export function signalShutdown(words: Int32Array): void {
  Atomics.store(words, SHUTDOWN, 1);
  Atomics.add(words, DOORBELL, 1);
  Atomics.notify(words, DOORBELL);
}
