// `pnpm bench --rounds N`: each runtime in its own child process (child-runner.ts), rounds interleaved
// across runtimes (the order rotates each round), each runtime's latency the median of its round
// medians, and the spread of every ratio reported as the min–max of its per-round values. A runtime
// whose latency swings between rounds (load on a shared machine, a thread pool that sleeps) shows up
// as a wide spread instead of silently moving the ratio.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HostTensor } from '@tsge/metadef';
import { latencyStats } from '@tsge/run';
import { extraWarmTurns } from './alternate.js';
import type { ChildReply, ChildRequest, RuntimeName } from './child-runner.js';

/** A child process speaking a request/reply protocol (`kind`-tagged messages; an `error` reply throws). */
export class Child<Req extends { readonly kind: string }, Reply extends { readonly kind: string }, Name extends string = string> {
  private pending: ((reply: Reply | ChildError) => void) | undefined;
  private readonly proc: ChildProcess;
  constructor(
    readonly name: Name,
    module: URL,
  ) {
    // same loader flags as this process (tsx, source conditions); structured clone carries typed arrays
    this.proc = fork(fileURLToPath(module), [], {
      execArgv: process.execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.proc.on('message', (reply: Reply) => this.pending?.(reply));
    this.proc.on('exit', (code) => this.pending?.({ kind: 'error', message: `${name} child exited with code ${code}` }));
  }
  async request<K extends Reply['kind']>(req: Req, expect: K): Promise<Extract<Reply, { kind: K }>> {
    const reply = await new Promise<Reply | ChildError>((resolve) => {
      this.pending = resolve;
      this.proc.send(req);
    });
    this.pending = undefined;
    if (reply.kind === 'error') throw new Error(`bench ${this.name}: ${(reply as ChildError).message}`);
    if (reply.kind !== expect) throw new Error(`bench ${this.name}: expected ${expect}, got ${reply.kind}`);
    return reply as Extract<Reply, { kind: K }>;
  }
  exit(): void {
    if (this.proc.connected) this.proc.send({ kind: 'exit' });
  }
}

interface ChildError {
  readonly kind: 'error';
  readonly message: string;
}

/**
 * `rounds` interleaved rounds: every runtime once a round, who goes first rotating, so no runtime
 * always follows the same neighbour; the values `measure` returns, by name, in round order.
 */
export async function interleavedRounds<C extends { readonly name: string }>(
  live: readonly C[],
  rounds: number,
  measure: (c: C) => Promise<number>,
): Promise<Record<string, number[]>> {
  const byName: Record<string, number[]> = Object.fromEntries(live.map((c) => [c.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < live.length; k++) {
      const c = live[(r + k) % live.length] as C;
      byName[c.name]?.push(await measure(c));
    }
    process.stderr.write(`\rround ${r + 1}/${rounds}`);
  }
  process.stderr.write('\n');
  return byName;
}

type RunnerChild = Child<ChildRequest, ChildReply, RuntimeName>;
const CHILD_RUNNER = new URL('./child-runner.ts', import.meta.url);

export interface IsolatedOptions {
  readonly threads: number;
  readonly rounds: number;
  readonly runs: number;
  readonly warmup: number;
  readonly gapMs: number;
}

export interface IsolatedResult {
  /** Each runtime's process-wide start before its load (tsge: starting its worker threads), ms. */
  readonly init: Record<string, number>;
  readonly load: Record<string, number>;
  readonly firstRun: Record<string, number>;
  readonly latency: Record<string, { median: number; p90: number }>;
  /** Per-round medians, by runtime. */
  readonly roundMedians: Record<string, number[]>;
  readonly outputs: Map<string, Record<string, HostTensor>>;
  /** The longest event-loop gap of each runtime's process during its timed runs (ms; warm-up excluded). */
  readonly loopGapMs: Record<string, number>;
  /** Peak RSS of each runtime's process. */
  readonly peakRssMB: Record<string, number>;
}

const median = (xs: readonly number[]): number => latencyStats([...xs]).medianMs;

export async function benchIsolated(
  files: { readonly onnx: string; readonly om: string },
  feeds: Record<string, HostTensor>,
  options: IsolatedOptions,
  log: (s: string) => void,
): Promise<IsolatedResult> {
  const names: RuntimeName[] = ['tsge', 'ort-web', 'ort-node'];
  const children: RunnerChild[] = names.map((n) => new Child(n, CHILD_RUNNER));
  try {
    const load: Record<string, number> = {};
    const firstRun: Record<string, number> = {};
    const live: RunnerChild[] = [];
    // every child starts Node and imports its runtime before any load is timed: a load must not
    // share the cores with the other children's start-up
    const init: Record<string, number> = {};
    await Promise.all(
      children.map((c) =>
        c.request({ kind: 'boot', runtime: c.name, threads: options.threads }, 'booted').then(
          (r) => {
            init[c.name] = r.initMs;
          },
          () => undefined,
        ),
      ),
    );
    // loaded one after another, so no load competes with another for the cores
    for (const c of children) {
      try {
        const r = await c.request(
          { kind: 'load', runtime: c.name, file: c.name === 'tsge' ? files.om : files.onnx, threads: options.threads, feeds },
          'loaded',
        );
        load[c.name] = r.loadMs;
        firstRun[c.name] = r.firstRunMs;
        live.push(c);
      } catch (e) {
        log(String(e));
        c.exit();
      }
    }
    const warm: number[] = [];
    for (const c of live) {
      const first = Math.max(1, options.warmup);
      const { samples } = await c.request({ kind: 'round', runs: first, gapMs: options.gapMs }, 'round');
      // then about WARM_MS of runs in all, so JIT tiers and heaps settle before the rounds
      const extra = extraWarmTurns(
        first,
        samples.reduce((a, b) => a + b, 0),
      );
      const settled = extra > 0 ? (await c.request({ kind: 'round', runs: extra, gapMs: options.gapMs }, 'round')).samples : samples;
      warm.push(median(settled));
    }
    const runs = runsPerRound(options.runs, Math.min(...warm));
    if (runs > options.runs) log(`${runs} runs per round (fast model: each round at least ${MIN_ROUND_MS} ms of runs)`);
    const all: Record<string, number[]> = Object.fromEntries(live.map((c) => [c.name, []]));
    const loopGapMs: Record<string, number> = Object.fromEntries(live.map((c) => [c.name, 0]));
    const roundMedians = await interleavedRounds(live, options.rounds, async (c) => {
      const { samples, loopGapMs: gap } = await c.request({ kind: 'round', runs, gapMs: options.gapMs }, 'round');
      loopGapMs[c.name] = Math.max(loopGapMs[c.name] ?? 0, gap);
      all[c.name]?.push(...samples);
      return median(samples);
    });
    const latency: IsolatedResult['latency'] = {};
    for (const c of live) latency[c.name] = { median: median(roundMedians[c.name] ?? []), p90: latencyStats(all[c.name] ?? []).p90Ms };
    const outputs = new Map<string, Record<string, HostTensor>>();
    const peakRssMB: Record<string, number> = {};
    for (const c of live) {
      const r = await c.request({ kind: 'outputs' }, 'outputs');
      outputs.set(c.name, r.outputs);
      peakRssMB[c.name] = r.peakRssMB;
    }
    return { init, load, firstRun, latency, roundMedians, outputs, loopGapMs, peakRssMB };
  } finally {
    for (const c of children) c.exit();
  }
}

/**
 * A round's median over 5 runs of a 0.5 ms model is decided by a few timer ticks and scheduler
 * hiccups, so its ratio swung ±40% between rounds: a round runs at least MIN_ROUND_MS of the
 * fastest runtime's runs (all runtimes the same count), between --runs and MAX_RUNS_PER_ROUND.
 */
export const MIN_ROUND_MS = 400;
const MAX_RUNS_PER_ROUND = 60;
export function runsPerRound(minRuns: number, fastestMs: number): number {
  if (!(fastestMs > 0)) return minRuns;
  return Math.max(minRuns, Math.min(MAX_RUNS_PER_ROUND, Math.ceil(MIN_ROUND_MS / fastestMs)));
}

/** Median, min and max over rounds of a/b, the per-round ratio of two runtimes' round medians. */
export function ratioSpread(a: readonly number[] | undefined, b: readonly number[] | undefined): RatioSpread | undefined {
  if (!a || !b || a.length === 0 || a.length !== b.length) return undefined;
  const ratios = a.map((x, i) => x / (b[i] as number));
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

export interface RatioSpread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}
