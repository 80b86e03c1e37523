// Worker threads outlive the pool that started them: a pool done with its threads (the device was
// released) hands back those whose handler can be torn down, and the next pool of the same entry,
// handler and Node options takes them, so a process's second model pays no thread boot and no
// module import, and runs on code V8 already optimised. Spares never keep the process alive.
import { Worker } from 'node:worker_threads';
import type { WorkerPreload, WorkerReply } from './protocol.js';

/** Where a thread's replies and its death go now: the pool using it, or the spares. */
export interface ThreadRoute {
  reply(reply: WorkerReply): void;
  down(reason: string): void;
}

export interface PoolThread {
  readonly worker: Worker;
  /** Entry, handler and Node options: only a pool with the same key may take it. */
  readonly key: string;
  route: ThreadRoute;
  /** Said at ready: whether the thread takes another init after its loop (undefined: not ready yet). */
  reusable: boolean | undefined;
  alive: boolean;
  /** Started ahead of any pool (`prestartThread`) and not taken yet: the idle timeout spares it. */
  pinned?: boolean;
}

/** A spare unused this long is terminated (idle processes give their threads back). */
export const SPARE_IDLE_MS = 30_000;
/** A handed-back thread whose loop has not ended by then is terminated. */
export const RETURN_WAIT_MS = 10_000;
/**
 * How long `giveBack` waits for a thread to come back (a few ms once told to stop), so a model
 * loaded right after a release finds it; a later return still makes it a spare.
 */
const RETURN_AWAIT_MS = 1000;

const spares = new Map<string, PoolThread[]>();
/** Per key, the most threads one pool asked for: more spares than that would only idle. */
const wanted = new Map<string, number>();
let idleTimer: ReturnType<typeof setTimeout> | undefined;

const ignore: ThreadRoute = { reply: () => {}, down: () => {} };

/** Starts a thread on `entryUrl`; its listeners stay for its life and follow `route`. */
export function bootThread(entryUrl: string, execArgv: string[] | undefined, key: string): PoolThread {
  const worker = new Worker(new URL(entryUrl), execArgv ? { execArgv } : {});
  const thread: PoolThread = { worker, key, route: ignore, reusable: undefined, alive: true };
  worker.on('message', (reply: WorkerReply) => thread.route.reply(reply));
  worker.on('error', (error) => thread.route.down(error.message));
  worker.on('exit', (code) => {
    thread.alive = false;
    thread.route.down(`exited with code ${code}`);
  });
  return thread;
}

/** A live spare for `key` (kept alive again while a pool uses it), if there is one. */
export function takeSpare(key: string, poolSize: number): PoolThread | undefined {
  wanted.set(key, Math.max(wanted.get(key) ?? 0, poolSize));
  const list = spares.get(key);
  for (let thread = list?.pop(); thread; thread = list?.pop()) {
    if (!thread.alive) continue;
    thread.pinned = false;
    thread.worker.ref();
    return thread;
  }
  return undefined;
}

/**
 * Takes back a thread whose pool is done: a reusable one in its loop becomes a spare once the loop
 * ends (the pool's owner told it to stop); any other is terminated (one still starting too: it
 * would boot beside the next pool's threads rather than save it a boot). Resolves once the thread
 * is back, terminated, or RETURN_AWAIT_MS passed.
 */
export async function giveBack(thread: PoolThread): Promise<void> {
  if (!thread.alive) return;
  if (thread.reusable !== true) {
    thread.route = ignore;
    await thread.worker.terminate();
    return;
  }
  thread.worker.unref();
  let back: () => void = () => {};
  const returned = new Promise<void>((resolve) => (back = resolve));
  const timer = setTimeout(() => void thread.worker.terminate(), RETURN_WAIT_MS);
  timer.unref();
  const settle = (): void => {
    clearTimeout(timer);
    back();
  };
  thread.route = {
    reply(reply) {
      if (reply.type === 'released') {
        settle();
        park(thread);
      } else if (reply.type === 'failed') {
        settle();
        thread.route = ignore;
        void thread.worker.terminate();
      }
    },
    down: settle,
  };
  let bound: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([returned, new Promise<void>((resolve) => (bound = setTimeout(resolve, RETURN_AWAIT_MS)))]);
  clearTimeout(bound);
}

/**
 * Starts a thread for pools of `key` before any exists: it imports `handlerUrl` and waits as a spare
 * (kept until a pool takes it or `releaseSpareThreads`, not ended by the idle timeout). Resolves once
 * it is parked; rejects if it cannot start or import the handler.
 */
export function prestartThread(
  entryUrl: string,
  handlerUrl: string,
  execArgv: string[] | undefined,
  key: string,
  poolSize: number,
): Promise<void> {
  wanted.set(key, Math.max(wanted.get(key) ?? 0, poolSize));
  const thread = bootThread(entryUrl, execArgv, key);
  return new Promise<void>((resolve, reject) => {
    const fail = (reason: string): void => {
      thread.route = ignore;
      void thread.worker.terminate();
      reject(new Error(`a prestarted worker failed: ${reason}`));
    };
    thread.route = {
      reply(reply) {
        if (reply.type === 'released') {
          thread.reusable = true;
          thread.pinned = true;
          // kept alive while it started (someone awaits it); a spare never keeps the process alive
          thread.worker.unref();
          park(thread);
          resolve();
        } else if (reply.type === 'failed') fail(reply.message);
      },
      down: fail,
    };
    thread.worker.postMessage({ type: 'preload', handler: handlerUrl } satisfies WorkerPreload);
  });
}

function park(thread: PoolThread): void {
  const list = spares.get(thread.key) ?? [];
  if (list.length >= (wanted.get(thread.key) ?? 0)) {
    thread.route = ignore;
    void thread.worker.terminate();
    return;
  }
  list.push(thread);
  spares.set(thread.key, list);
  thread.route = {
    reply: () => {},
    down: () => {
      const at = list.indexOf(thread);
      if (at >= 0) list.splice(at, 1);
    },
  };
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => void releaseIdleSpares(), SPARE_IDLE_MS);
  idleTimer.unref();
}

/** The idle timeout: every spare but the prestarted ones no pool took yet. */
async function releaseIdleSpares(): Promise<void> {
  idleTimer = undefined;
  const idle: PoolThread[] = [];
  // in place: a parked thread's exit handler removes it from this very list
  for (const list of spares.values()) {
    for (let i = list.length - 1; i >= 0; i--) if (list[i]?.pinned !== true) idle.push(...list.splice(i, 1));
  }
  await Promise.all(
    idle.map((thread) => {
      thread.route = ignore;
      return thread.worker.terminate();
    }),
  );
}

/** Terminates every spare thread of the process (they would also go after SPARE_IDLE_MS unused). */
export async function releaseSpareThreads(): Promise<void> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = undefined;
  const all = [...spares.values()].flat();
  spares.clear();
  await Promise.all(
    all.map((thread) => {
      thread.route = ignore;
      return thread.worker.terminate();
    }),
  );
}

/** How many spare threads the process holds for `key` (all keys without one). */
export function spareThreadCount(key?: string): number {
  if (key !== undefined) return spares.get(key)?.filter((t) => t.alive).length ?? 0;
  return [...spares.values()].reduce((n, list) => n + list.filter((t) => t.alive).length, 0);
}
