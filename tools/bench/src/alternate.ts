// The in-process timing loop of the TFLite and TensorFlow.js rows: runtimes take turns, each run
// after a short gap, so load changes on the machine hit all of them alike.
import { latencyStats } from '@tsge/run';
import { settle } from './quiet.js';

export interface AlternatingRunner<T> {
  readonly name: string;
  run(): Promise<T>;
}

/**
 * Warm-up: at least `--warmup` turns, and more until about WARM_MS of them have run (at most
 * MAX_WARM_TURNS), so every runtime's JIT tiers and heap have settled before timing: on two
 * threads tsge's first 25–50 runs of a model ran ~1.5× a steady run (V8 compiling and scavenging
 * on the cores the kernels use), and two warm-up runs left most of that inside the timed runs.
 */
export const WARM_MS = 1000;
const MAX_WARM_TURNS = 50;

/** Warm-up turns to add after `done` turns that took `doneMs` in all (see WARM_MS). */
export function extraWarmTurns(done: number, doneMs: number): number {
  if (done <= 0 || doneMs >= WARM_MS) return 0;
  const perTurn = Math.max(doneMs / done, 0.05);
  return Math.max(0, Math.min(MAX_WARM_TURNS, Math.ceil(WARM_MS / perTurn)) - done);
}

/**
 * How many timed turns a row takes: at least `runs`; fast models get more (up to about 2 s of
 * them, at most 100) so a median is not decided by a handful of samples, nor by the runtimes'
 * first runs after their warm-up, which on two threads can run 1.5× a steady run. `turnMs` is
 * what the last warm-up turn of every runtime took.
 */
export function timedRuns(runs: number, turnMs: number, runtimes: number, gapMs: number): number {
  return Math.max(runs, Math.min(100, Math.floor(2000 / Math.max(1, turnMs + runtimes * gapMs))));
}

/**
 * `warmup` untimed turns of every runner, then `timedRuns` timed ones; median and p90 ms by name,
 * and each runner's last result.
 */
export async function alternateRuns<T>(
  id: string,
  runners: readonly AlternatingRunner<T>[],
  options: { runs: number; warmup: number; gapMs: number },
): Promise<{ latency: Record<string, { median: number; p90: number }>; last: Map<string, T> }> {
  const last = new Map<string, T>();
  let turnMs = 0;
  const turn = async (): Promise<void> => {
    const start = performance.now();
    for (const r of runners) last.set(r.name, await r.run());
    turnMs = performance.now() - start;
  };
  const warmStart = performance.now();
  for (let i = 0; i < options.warmup; i++) await turn();
  const extra = extraWarmTurns(options.warmup, performance.now() - warmStart);
  for (let i = 0; i < extra; i++) await turn();
  const samples = new Map<string, number[]>(runners.map((r) => [r.name, []]));
  const runs = timedRuns(options.runs, turnMs, runners.length, options.gapMs);
  for (let i = 0; i < runs; i++) {
    for (const r of runners) {
      await settle(options.gapMs);
      const t = performance.now();
      last.set(r.name, await r.run());
      samples.get(r.name)?.push(performance.now() - t);
    }
    process.stderr.write(`\r[${id}] run ${i + 1}/${runs}`);
  }
  process.stderr.write('\n');
  const latency: Record<string, { median: number; p90: number }> = {};
  for (const [name, xs] of samples) {
    const s = latencyStats(xs);
    latency[name] = { median: s.medianMs, p90: s.p90Ms };
  }
  return { latency, last };
}
