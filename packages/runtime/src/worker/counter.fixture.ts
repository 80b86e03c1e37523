// Test handler: each worker adds its index + 1 to word 0 of shared memory, then sleeps until told
// to report, proving setup, loop and shared memory.
import type { WorkerContext } from './protocol.js';

export function setup(context: WorkerContext<{ word: number }>): void {
  const words = new Int32Array(context.memory.buffer);
  Atomics.add(words, context.data.word, context.index + 1);
}

export function loop(context: WorkerContext<{ word: number }>): void {
  const words = new Int32Array(context.memory.buffer);
  Atomics.wait(words, context.data.word + 1, 0);
  context.post({ index: context.index, seen: Atomics.load(words, context.data.word) });
}
