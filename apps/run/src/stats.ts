export interface LatencyStats {
  readonly runs: number;
  readonly minMs: number;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function latencyStats(samplesMs: readonly number[]): LatencyStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((s, x) => s + x, 0);
  return {
    runs: sorted.length,
    minMs: sorted[0] ?? Number.NaN,
    medianMs: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    meanMs: sorted.length ? sum / sorted.length : Number.NaN,
  };
}
