import type { DeviceErrorV1, LaunchV1, StreamTaskV1, StreamWorkV1 } from '@tsge/metadef';
import { type EventTable, createEventTable, eventTableWords } from './event-table.js';

/** The task kinds a stream holds; kernel tasks carry whatever the executor needs. */
export type StreamTask<K> = StreamTaskV1<K>;
export type StreamCursor<K> = StreamWorkV1<K>;

export class StreamDeadlockError extends Error implements DeviceErrorV1 {
  readonly deviceError = 'deadlock';
  readonly events: readonly number[];
  constructor(events: readonly number[]) {
    super(`streams wait on events ${events.join(', ')} that no stream records`);
    this.name = 'StreamDeadlockError';
    this.events = events;
  }
}

export class StreamAbortedError extends Error implements DeviceErrorV1 {
  readonly deviceError = 'aborted';
  constructor() {
    super('the run was aborted');
    this.name = 'StreamAbortedError';
  }
}

/**
 * Advances each stream as far as it can, in turn: tasks of one stream run in order; a `wait`
 * whose event is not recorded yet parks the stream and the next one runs.
 * Returns the event ids still awaited when no local stream can move (empty when all finished).
 */
function advance<K>(
  streams: readonly StreamCursor<K>[],
  positions: number[],
  events: EventTable,
  run: LaunchV1<K>,
): { moved: boolean; blockedOn: number[] } {
  let moved = false;
  const blockedOn: number[] = [];
  for (let s = 0; s < streams.length; s++) {
    const stream = streams[s] as StreamCursor<K>;
    let position = positions[s] as number;
    while (position < stream.tasks.length) {
      const task = stream.tasks[position] as StreamTask<K>;
      if (task.kind === 'wait') {
        if (!events.isSet(task.event)) {
          blockedOn.push(task.event);
          break;
        }
      } else if (task.kind === 'record') {
        events.record(task.event);
      } else {
        run(task.kernel, stream.stream);
      }
      position++;
      moved = true;
    }
    positions[s] = position;
  }
  return { moved, blockedOn };
}

/**
 * Runs streams on this thread, blocking in `Atomics.wait` while every local stream waits for an
 * event another thread records (worker threads only). `aborted` is polled after each wake-up.
 */
export function runStreamsBlocking<K>(
  streams: readonly StreamCursor<K>[],
  events: EventTable,
  run: LaunchV1<K>,
  aborted: () => boolean,
): void {
  const positions = streams.map(() => 0);
  for (;;) {
    const sequence = events.sequence();
    const { blockedOn } = advance(streams, positions, events, run);
    if (blockedOn.length === 0) return;
    if (aborted()) throw new StreamAbortedError();
    events.sleep(sequence);
    if (aborted()) throw new StreamAbortedError();
  }
}

/**
 * Runs every stream on the calling thread to the end without yielding (a synchronous run: the
 * event loop waits until it returns). All streams are local, so a wait nobody can satisfy is a
 * deadlock and throws.
 */
export function runStreamsHere<K>(streams: readonly StreamCursor<K>[], events: EventTable, run: LaunchV1<K>): void {
  const positions = streams.map(() => 0);
  for (;;) {
    const { moved, blockedOn } = advance(streams, positions, events, run);
    if (blockedOn.length === 0) return;
    if (!moved) throw new StreamDeadlockError(blockedOn);
  }
}

export interface RunStreamsAsyncOptions {
  /** Yield to the event loop when a slice of work took longer than this (default 4 ms). */
  readonly sliceMs?: number;
}

/**
 * Runs every stream on the calling thread, task by task, giving the event loop a turn between
 * slices so timers and I/O keep running. All streams are local, so a wait nobody can satisfy is a
 * deadlock and throws.
 */
export async function runStreamsOnHost<K>(
  streams: readonly StreamCursor<K>[],
  events: EventTable,
  run: LaunchV1<K>,
  options: RunStreamsAsyncOptions = {},
): Promise<void> {
  const sliceMs = options.sliceMs ?? 4;
  const positions = streams.map(() => 0);
  let sliceStart = performance.now();
  for (;;) {
    // one task per stream per step so a slice can end between tasks
    let moved = false;
    const blockedOn: number[] = [];
    for (let s = 0; s < streams.length; s++) {
      const stream = streams[s] as StreamCursor<K>;
      const position = positions[s] as number;
      if (position >= stream.tasks.length) continue;
      const task = stream.tasks[position] as StreamTask<K>;
      if (task.kind === 'wait' && !events.isSet(task.event)) {
        blockedOn.push(task.event);
        continue;
      }
      if (task.kind === 'record') events.record(task.event);
      else if (task.kind === 'kernel') run(task.kernel, stream.stream);
      positions[s] = position + 1;
      moved = true;
      if (performance.now() - sliceStart > sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    if (!moved) {
      if (blockedOn.length === 0) return;
      throw new StreamDeadlockError(blockedOn);
    }
  }
}

/** `DeviceV1.runStreams` of the devices here: a fresh event table per run on the calling thread. */
export function runStreamsWithFreshEvents<K>(streams: readonly StreamCursor<K>[], eventCount: number, launch: LaunchV1<K>): Promise<void> {
  return runStreamsOnHost(streams, createEventTable(new Int32Array(eventTableWords(eventCount)), 1, eventCount), launch);
}

/** Runs streams that all live on this thread (a worker's whole run, a synchronous run): a wait nobody records is a deadlock. */
export function runStreamsLocal<K>(streams: readonly StreamCursor<K>[], eventCount: number, run: LaunchV1<K>): void {
  runStreamsHere(streams, createEventTable(new Int32Array(eventTableWords(eventCount)), 1, eventCount), run);
}
