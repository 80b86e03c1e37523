// Test handler whose threads are reusable: each worker records its thread id and how many times
// this module instance ran setup and teardown, then waits until the `stop` word is set. With
// `failSetup` setup throws; with `exitInTeardown` the thread exits instead of coming back.
import { threadId } from 'node:worker_threads';
import type { WorkerContext } from './protocol.js';

interface Data {
  readonly word: number;
  readonly stop: number;
  readonly failSetup?: boolean;
  readonly exitInTeardown?: boolean;
}

let setups = 0;
let teardowns = 0;

export function setup(context: WorkerContext<Data>): void {
  if (context.data.failSetup) throw new Error('setup refused');
  setups++;
  const words = new Int32Array(context.memory.buffer);
  const at = context.data.word + 3 * context.index;
  words[at] = threadId;
  words[at + 1] = setups;
  words[at + 2] = teardowns;
}

export function loop(context: WorkerContext<Data>): void {
  Atomics.wait(new Int32Array(context.memory.buffer), context.data.stop, 0);
}

export function teardown(context: WorkerContext<Data>): void {
  if (context.data.exitInTeardown) process.exit(0);
  teardowns++;
}
