import type { EventTableV1 } from '@tsge/metadef';

/**
 * Events as Int32 words in (shared) memory: word 0 counts records (waiters sleep on it), word
 * 1 + e holds the generation of the run that last recorded event e, so nothing is reset between runs.
 */
export type EventTable = EventTableV1;

export const eventTableWords = (eventCount: number): number => 1 + eventCount;

export function createEventTable(words: Int32Array, generation: number, eventCount: number): EventTable {
  const check = (event: number): number => {
    if (!Number.isInteger(event) || event < 0 || event >= eventCount)
      throw new RangeError(`event ${event} is outside 0..${eventCount - 1}`);
    return 1 + event;
  };
  return {
    isSet: (event) => Atomics.load(words, check(event)) === generation,
    record(event) {
      Atomics.store(words, check(event), generation);
      Atomics.add(words, 0, 1);
      Atomics.notify(words, 0);
    },
    sequence: () => Atomics.load(words, 0),
    sleep(sequence) {
      Atomics.wait(words, 0, sequence);
    },
    wakeAll() {
      Atomics.add(words, 0, 1);
      Atomics.notify(words, 0);
    },
  };
}
