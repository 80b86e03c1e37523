/** Counters of one node (summed over its instances, and over hosts for NATS sessions). */
export interface NodeStats {
  /** Messages taken from the node's input edges. */
  received: number;
  /** Input sets processed (including failed ones). */
  processed: number;
  failed: number;
  /** Incomplete input sets dropped by the alignment policy. */
  dropped: number;
  /** Messages sent on the node's outputs (errors included). */
  emitted: number;
  /** Messages waiting on each input edge (for NATS: in the edge's stream, delivered but unacknowledged included). */
  queued: number[];
  /** How long `proc` took over the last input sets (at most 1024 per instance host), or undefined before the first. */
  latencyMs: { p50: number; p99: number } | undefined;
}

const WINDOW = 1024;

/** The p-quantile (0..1) of samples, nearest rank. */
export function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

export function latencyOf(samples: readonly number[]): NodeStats['latencyMs'] {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
}

/** What a node's runtime counts; `snapshot` gives the public view. */
export class StatsRecorder {
  received = 0;
  processed = 0;
  failed = 0;
  dropped = 0;
  emitted = 0;
  private readonly window: number[] = [];
  private next = 0;

  /** Records one proc duration (ms) in a ring of the last 1024. */
  took(ms: number): void {
    if (this.window.length < WINDOW) this.window.push(ms);
    else this.window[this.next] = ms;
    this.next = (this.next + 1) % WINDOW;
  }

  get samples(): readonly number[] {
    return this.window;
  }

  snapshot(queued: number[]): NodeStats {
    return {
      received: this.received,
      processed: this.processed,
      failed: this.failed,
      dropped: this.dropped,
      emitted: this.emitted,
      queued,
      latencyMs: latencyOf(this.window),
    };
  }
}
