import type { DeviceRangeV1, DeviceWorkersV1 } from '@tsge/metadef';
import { type WasmMemory, atomicsWaitAsync } from '../wasm.js';
import type { WorkerInit, WorkerPost } from './protocol.js';
import { shareOf } from './prefault.js';
import { type PoolThread, bootThread, giveBack, prestartThread, spareThreadCount, takeSpare } from './spare-threads.js';
import { bundledWorkerExecArgv, currentWorkerModuleUrl, isTypeScriptModule, workerModuleUrl } from './worker-bundle.js';

export interface WorkerPoolOptions {
  readonly size: number;
  /** URL of a module implementing `WorkerHandlerModule`. */
  readonly handler: URL;
  readonly memory: WasmMemory;
  /** Structured-cloneable data for each worker (`(index) => data` for per-worker data). */
  readonly data: unknown | ((index: number) => unknown);
  /** A range of the memory the workers map before setup, split between them (see prefault.ts). */
  readonly prefault?: DeviceRangeV1;
}

/** A fixed set of worker threads over one memory (the CPU device's `DeviceWorkersV1`). */
export interface WorkerPool extends DeviceWorkersV1 {
  /**
   * Done with the threads once the handler's loops were told to end: threads of a reusable handler
   * are kept as the process's spares when their loop returns, the others terminated.
   */
  release(): Promise<void>;
}

/**
 * A fixed set of worker threads sharing one memory, each running the same handler module: spare
 * threads of an earlier pool with the same handler when the process has some (see spare-threads.ts),
 * else new ones.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const entry = entryModule();
  const messageListeners: ((workerIndex: number, message: unknown) => void)[] = [];
  const failureListeners: ((workerIndex: number, reason: string) => void)[] = [];
  const threads: PoolThread[] = [];
  let terminating = false;
  /** Every thread so far was a spare (a pool waiting for bundles to build boots its threads). */
  let booted = true;
  const execArgv = workerExecArgv(entry);
  const start = (index: number, entryUrl: string, handlerUrl: string): Promise<void> => {
    if (terminating) return Promise.reject(new Error(`worker ${index} failed to start: the pool was terminated`));
    const key = threadKey(entryUrl, handlerUrl, execArgv);
    const spare = takeSpare(key, options.size);
    if (!spare) booted = false;
    const thread = spare ?? bootThread(entryUrl, execArgv, key);
    threads[index] = thread;
    const started = new Promise<void>((resolve, reject) => {
      let ready = false;
      const fail = (reason: string): void => {
        if (!ready) reject(new Error(`worker ${index} failed to start: ${reason}`));
        else if (!terminating) for (const l of failureListeners) l(index, reason);
      };
      thread.route = {
        reply(reply) {
          if (reply.type === 'ready') {
            ready = true;
            thread.reusable = reply.reusable;
            resolve();
          } else if (reply.type === 'failed') {
            // a handler that failed keeps whatever state it had: the thread is not reused
            thread.reusable = false;
            fail(reply.message);
          } else if (reply.type === 'message') for (const l of messageListeners) l(index, reply.message);
        },
        down: fail,
      };
    });
    const data = typeof options.data === 'function' ? (options.data as (i: number) => unknown)(index) : options.data;
    const share = options.prefault ? shareOf(options.prefault, index, options.size) : undefined;
    const init: WorkerInit = {
      type: 'init',
      index,
      handler: handlerUrl,
      memory: options.memory,
      data,
      ...(share ? { prefault: share } : {}),
    };
    thread.worker.postMessage(init);
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
  if (modules !== undefined) booted = false;
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
  /** Takes the threads from this pool (once): none starts after this. */
  const detach = (): PoolThread[] => {
    terminating = true;
    return threads.splice(0);
  };
  return {
    size: options.size,
    booted,
    ready,
    onMessage: (listener) => messageListeners.push(listener),
    onFailure: (listener) => failureListeners.push(listener),
    post(workerIndex, message) {
      threads[workerIndex]?.worker.postMessage({ type: 'post', message } satisfies WorkerPost);
    },
    async waitAsync(words, index, value, timeoutMs) {
      const wait = atomicsWaitAsync?.(words, index, value, timeoutMs);
      if (wait?.async) await wait.value;
      // without Atomics.waitAsync the caller polls: a timer turn, never a blocked event loop
      else if (!wait) await new Promise<void>((resolve) => setTimeout(resolve, Math.min(timeoutMs, 1)));
    },
    async terminate() {
      await Promise.all(detach().map((t) => t.worker.terminate()));
    },
    async release() {
      await Promise.all(detach().map(giveBack));
    },
  };
}

const entryModule = (): URL => new URL(import.meta.url.endsWith('.ts') ? './worker-entry.ts' : './worker-entry.js', import.meta.url);
/** Bundled workers (from TypeScript sources) need no module loader: see `bundledWorkerExecArgv`. */
const workerExecArgv = (entry: URL): string[] | undefined =>
  isTypeScriptModule(entry.href) ? bundledWorkerExecArgv(process.execArgv) : undefined;
/** Only a pool with the same entry, handler and Node options may take a spare thread. */
const threadKey = (entryUrl: string, handlerUrl: string, execArgv: string[] | undefined): string =>
  `${entryUrl}\n${handlerUrl}\n${JSON.stringify(execArgv ?? null)}`;

/**
 * Starts `size` threads for pools running `handler` before any pool exists (GE's initialisation,
 * before models load): each boots Node, imports the handler and waits as a spare, so the next pool
 * of that handler (up to `size` threads) starts none and the first run after a load finds its
 * workers up. Threads the process already holds as spares count. Resolves with the number of spare
 * threads held for the handler; rejects if a thread cannot start.
 */
export async function prestartWorkers(options: { readonly size: number; readonly handler: URL }): Promise<number> {
  const size = Math.floor(options.size);
  if (!Number.isSafeInteger(size) || size < 0)
    throw new RangeError(`prestartWorkers: size must be a non-negative integer, got ${options.size}`);
  const entry = entryModule();
  const execArgv = workerExecArgv(entry);
  const [entryUrl, handlerUrl] = await Promise.all([workerModuleUrl(entry.href), workerModuleUrl(options.handler.href)]);
  const key = threadKey(entryUrl, handlerUrl, execArgv);
  const missing = Math.max(0, size - spareThreadCount(key));
  await Promise.all(Array.from({ length: missing }, () => prestartThread(entryUrl, handlerUrl, execArgv, key, size)));
  return spareThreadCount(key);
}
