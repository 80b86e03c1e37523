import type { DeviceWorkersV1 } from '@tsge/metadef';
import { Worker } from 'node:worker_threads';
import { type WasmMemory, atomicsWaitAsync } from '../wasm.js';
import type { WorkerInit, WorkerPost, WorkerReply } from './protocol.js';
import { bundledWorkerExecArgv, currentWorkerModuleUrl, isTypeScriptModule, workerModuleUrl } from './worker-bundle.js';

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
  // bundled workers (from TypeScript sources) need no module loader
  const execArgv = isTypeScriptModule(entry.href) ? bundledWorkerExecArgv(process.execArgv) : undefined;
  const start = (index: number, entryUrl: string, handlerUrl: string): Promise<void> => {
    if (terminating) return Promise.reject(new Error(`worker ${index} failed to start: the pool was terminated`));
    const worker = new Worker(new URL(entryUrl), execArgv ? { execArgv } : {});
    workers[index] = worker;
    const started = new Promise<void>((resolve, reject) => {
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
    });
    const data = typeof options.data === 'function' ? (options.data as (i: number) => unknown)(index) : options.data;
    const init: WorkerInit = { type: 'init', index, handler: handlerUrl, memory: options.memory, data };
    worker.postMessage(init);
    return started;
  };
  // from TypeScript sources, the entry and the handler are bundled (see worker-bundle.ts): workers
  // start here when the bundles are current, else once they are built
  const entryNow = currentWorkerModuleUrl(entry.href);
  const handlerNow = currentWorkerModuleUrl(options.handler.href);
  const modules =
    entryNow !== undefined && handlerNow !== undefined
      ? undefined
      : Promise.all([workerModuleUrl(entry.href), workerModuleUrl(options.handler.href)]);
  const readies = Array.from({ length: options.size }, (_, index) =>
    modules === undefined
      ? start(index, entryNow as string, handlerNow as string)
      : modules.then(
          ([entryUrl, handlerUrl]) => start(index, entryUrl, handlerUrl),
          (error: unknown) => {
            throw new Error(`worker ${index} failed to start: ${error instanceof Error ? error.message : String(error)}`);
          },
        ),
  );
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
