// The in-process timing loop of the TFLite and TensorFlow.js rows: runtimes take turns, each run
// after a short gap, so load changes on the machine hit all of them alike.
import { latencyStats } from '@tsge/run';
import { settle } from './quiet.js';

export interface AlternatingRunner<T> {
  readonly name: string;
  run(): Promise<T>;
}

/** `warmup` untimed and `runs` timed turns of every runner; median and p90 ms by name, and each runner's last result. */
export async function alternateRuns<T>(
  id: string,
  runners: readonly AlternatingRunner<T>[],
  options: { runs: number; warmup: number; gapMs: number },
): Promise<{ latency: Record<string, { median: number; p90: number }>; last: Map<string, T> }> {
  const last = new Map<string, T>();
  for (let i = 0; i < options.warmup; i++) for (const r of runners) last.set(r.name, await r.run());
  const samples = new Map<string, number[]>(runners.map((r) => [r.name, []]));
  for (let i = 0; i < options.runs; i++) {
    for (const r of runners) {
      await settle(options.gapMs);
      const t = performance.now();
      last.set(r.name, await r.run());
      samples.get(r.name)?.push(performance.now() - t);
    }
    process.stderr.write(`\r[${id}] run ${i + 1}/${options.runs}`);
  }
  process.stderr.write('\n');
  const latency: Record<string, { median: number; p90: number }> = {};
  for (const [name, xs] of samples) {
    const s = latencyStats(xs);
    latency[name] = { median: s.medianMs, p90: s.p90Ms };
  }
  return { latency, last };
}
