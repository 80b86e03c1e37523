// Long-lived child processes that run cases one at a time. A case that does not answer within the
// timeout, or whose process grows past the RSS limit, gets its process killed (hang / oom); a
// process that dies mid-case is a crash (or oom when V8 says so). Killed processes are replaced.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CaseResult } from './classify.js';
import type { ChildReply, ChildRequest } from './protocol.js';

export interface PoolOptions {
  /** Child processes running cases at once. */
  readonly size: number;
  /** URL of a module exporting `registry: CampaignRegistry`. */
  readonly registryUrl: string;
  /** A case not answered by then is a hang (default 5000). */
  readonly timeoutMs?: number;
  /** RSS above this is an oom (default 2 GiB); the V8 heap limit is set below it. */
  readonly rssLimitBytes?: number;
  /** Started processes retire after this many cases (default 500) so leaks of one case do not pile up. */
  readonly casesPerChild?: number;
}

export interface ChildPool {
  run(campaign: string, bytes: Uint8Array): Promise<CaseResult>;
  /** Processes running at most at once. */
  readonly size: number;
  /** Processes started so far (the first `size`, then replacements). */
  readonly started: number;
  close(): Promise<void>;
}

interface Job {
  readonly id: number;
  readonly campaign: string;
  readonly bytes: Uint8Array;
  readonly resolve: (result: CaseResult) => void;
  readonly reject: (error: Error) => void;
}

interface Child {
  readonly process: ChildProcess;
  ready: boolean;
  job: Job | undefined;
  cases: number;
  stderr: string;
  killedFor: 'hang' | 'oom' | undefined;
  timer: NodeJS.Timeout | undefined;
  watchdog: NodeJS.Timeout | undefined;
  peakRss: number;
}

const PAGE_BYTES = 4096;
const STDERR_TAIL = 8192;
const OOM_TEXT = /heap out of memory|Reached heap limit|Allocation failed|out of memory|ENOMEM/i;

/** Resident bytes of a process (Linux: /proc/<pid>/statm); undefined elsewhere or when it is gone. */
function residentBytes(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
  } catch {
    return undefined;
  }
}

/** From TypeScript sources the child needs the source condition and tsx's loader. */
function execArgvFor(entry: URL): string[] {
  if (!entry.pathname.endsWith('.ts')) return [];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
  return ['--conditions=@tsge/source', '--import', tsx];
}

export function createChildPool(options: PoolOptions): ChildPool {
  const timeoutMs = options.timeoutMs ?? 5000;
  const rssLimit = options.rssLimitBytes ?? 2 * 1024 ** 3;
  const heapMb = Math.max(64, Math.floor((rssLimit * 0.75) / 1024 ** 2));
  const casesPerChild = options.casesPerChild ?? 500;
  const entry = new URL(import.meta.url.endsWith('.ts') ? './child.ts' : './child.js', import.meta.url);
  const children = new Set<Child>();
  const queue: Job[] = [];
  let nextId = 0;
  let started = 0;
  let failedStarts = 0;
  let closed = false;

  const finish = (child: Child, result: CaseResult): void => {
    const job = child.job;
    if (!job) return;
    clearTimeout(child.timer);
    clearInterval(child.watchdog);
    child.job = undefined;
    child.cases++;
    job.resolve(result);
  };

  const spawnChild = (): Child => {
    started++;
    const proc = fork(fileURLToPath(entry), [options.registryUrl], {
      execArgv: [...execArgvFor(entry), `--max-old-space-size=${heapMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const child: Child = {
      process: proc,
      ready: false,
      job: undefined,
      cases: 0,
      stderr: '',
      killedFor: undefined,
      timer: undefined,
      watchdog: undefined,
      peakRss: 0,
    };
    children.add(child);
    proc.stderr?.setEncoding('utf8').on('data', (text: string) => {
      child.stderr = (child.stderr + text).slice(-STDERR_TAIL);
    });
    proc.on('message', (reply: ChildReply) => {
      if (reply.type === 'ready') {
        child.ready = true;
        failedStarts = 0;
        pump();
      } else if (reply.type === 'result' && child.job?.id === reply.id && child.killedFor === undefined) {
        finish(child, reply.result);
        // a process that grew past half the limit leaves before it takes another case
        if (reply.exiting || reply.rss > rssLimit / 2 || child.cases >= casesPerChild) retire(child);
        pump();
      }
    });
    proc.on('exit', (code, signal) => {
      children.delete(child);
      if (!child.ready && child.killedFor === undefined && !closed) {
        failedStarts++;
        if (failedStarts >= 3) {
          const error = new Error(`fuzz child processes fail to start (last exit ${code ?? signal}): ${child.stderr.trim()}`);
          for (const job of queue.splice(0)) job.reject(error);
          if (child.job) child.job.reject(error);
          return;
        }
      }
      if (child.job) {
        const tail = child.stderr.trim().split('\n').slice(-6).join('\n');
        if (child.killedFor === 'hang') finish(child, { outcome: 'hang', message: `no answer within ${timeoutMs} ms` });
        else if (child.killedFor === 'oom' || OOM_TEXT.test(child.stderr))
          finish(child, { outcome: 'oom', message: `resident memory reached ${Math.round(child.peakRss / 1024 ** 2)} MB. ${tail}`.trim() });
        else finish(child, { outcome: 'crash', message: `process exited (${signal ?? `code ${code}`}). ${tail}`.trim() });
      }
      pump();
    });
    return child;
  };

  const retire = (child: Child): void => {
    children.delete(child);
    child.process.kill('SIGKILL');
  };

  const dispatch = (child: Child, job: Job): void => {
    child.job = job;
    child.killedFor = undefined;
    child.peakRss = 0;
    const kill = (reason: 'hang' | 'oom'): void => {
      if (child.killedFor) return;
      child.killedFor = reason;
      clearTimeout(child.timer);
      clearInterval(child.watchdog);
      child.process.kill('SIGKILL');
    };
    child.timer = setTimeout(() => kill('hang'), timeoutMs);
    child.watchdog = setInterval(() => {
      const rss = residentBytes(child.process.pid ?? -1);
      if (rss === undefined) return;
      child.peakRss = Math.max(child.peakRss, rss);
      if (rss > rssLimit) kill('oom');
    }, 25);
    const request: ChildRequest = { type: 'case', id: job.id, campaign: job.campaign, bytes: job.bytes };
    child.process.send(request);
  };

  function pump(): void {
    if (closed) return;
    for (const child of children) {
      if (queue.length === 0) return;
      if (child.ready && !child.job && child.killedFor === undefined) dispatch(child, queue.shift() as Job);
    }
    // start processes while work waits and there is room (one per call keeps start-up orderly)
    const busyOrStarting = [...children].filter((c) => c.job || !c.ready).length;
    if (queue.length > busyOrStarting && children.size < options.size && failedStarts < 3) spawnChild();
  }

  return {
    run(campaign, bytes) {
      if (closed) return Promise.reject(new Error('the pool is closed'));
      return new Promise<CaseResult>((resolve, reject) => {
        queue.push({ id: nextId++, campaign, bytes, resolve, reject });
        pump();
      });
    },
    size: options.size,
    get started() {
      return started;
    },
    async close() {
      closed = true;
      const exits = [...children].map((c) => new Promise<void>((resolve) => c.process.once('exit', () => resolve())));
      for (const c of children) {
        clearTimeout(c.timer);
        clearInterval(c.watchdog);
        c.process.kill('SIGKILL');
      }
      await Promise.all(exits);
    },
  };
}
