import type { DeviceWorkersV1 } from '@tsge/metadef';
import type { Worker } from 'node:worker_threads';
import { type WasmMemory, atomicsWaitAsync } from '../wasm.js';
import type { WorkerInit, WorkerPost, WorkerReply } from './protocol.js';
import { spawnWorker } from './spawn-worker.js';

export interface WorkerPoolOptions {
  readonly size: number;
  /** URL of a module implementing `WorkerHandlerModule`. */
  readonly handler: URL;
  readonly memory: WasmMemory;
  /** Structured-cloneable data for each worker (`(index) => data` for per-worker data). */
  readonly data: unknown | ((index: number) => unknown);
}

/** A fixed set of worker threads over one memory (the CPU device's `DeviceWorkersV1`). */
export type WorkerPool = DeviceWorkersV1;

/** A fixed set of worker threads sharing one memory, each running the same handler module. */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './worker-entry.ts' : './worker-entry.js', import.meta.url);
  const messageListeners: ((workerIndex: number, message: unknown) => void)[] = [];
  const failureListeners: ((workerIndex: number, reason: string) => void)[] = [];
  const workers: Worker[] = [];
  let terminating = false;
  const readies: Promise<void>[] = [];
  for (let index = 0; index < options.size; index++) {
    const worker = spawnWorker(entry);
    workers.push(worker);
    readies.push(
      new Promise<void>((resolve, reject) => {
        let ready = false;
        const fail = (reason: string): void => {
          if (!ready) reject(new Error(`worker ${index} failed to start: ${reason}`));
          else if (!terminating) for (const l of failureListeners) l(index, reason);
        };
        worker.on('message', (reply: WorkerReply) => {
          if (reply.type === 'ready') {
            ready = true;
            resolve();
          } else if (reply.type === 'failed') fail(reply.message);
          else for (const l of messageListeners) l(index, reply.message);
        });
        worker.on('error', (error) => fail(error.message));
        worker.on('exit', (code) => fail(`exited with code ${code}`));
      }),
    );
    const data = typeof options.data === 'function' ? (options.data as (i: number) => unknown)(index) : options.data;
    const init: WorkerInit = { type: 'init', index, handler: options.handler.href, memory: options.memory, data };
    worker.postMessage(init);
  }
  const ready = Promise.all(readies).then(() => undefined);
  // a failed start is reported through `ready`; avoid an unhandled rejection when nobody awaits it
  ready.catch(() => undefined);
  return {
    size: options.size,
    ready,
    onMessage: (listener) => messageListeners.push(listener),
    onFailure: (listener) => failureListeners.push(listener),
    post(workerIndex, message) {
      workers[workerIndex]?.postMessage({ type: 'post', message } satisfies WorkerPost);
    },
    async waitAsync(words, index, value, timeoutMs) {
      const wait = atomicsWaitAsync?.(words, index, value, timeoutMs);
      if (wait?.async) await wait.value;
      // without Atomics.waitAsync the caller polls: a timer turn, never a blocked event loop
      else if (!wait) await new Promise<void>((resolve) => setTimeout(resolve, Math.min(timeoutMs, 1)));
    },
    async terminate() {
      terminating = true;
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
