import { TsgeError } from '@tsge/metadef';

/**
 * The deadline of one run (`RunOptions.timeoutMs`). The calling thread checks it between tasks and
 * at each subgraph (loop iteration), so a run there stops at the next task; workers cannot be
 * interrupted and are replaced by the executor when it expires.
 */
export interface Deadline {
  readonly timeoutMs: number;
  /** `performance.now()` at which the run must have finished. */
  readonly at: number;
  expired(): boolean;
  /** TSGE-E6080; `where` names what was about to run (or what was waited for). */
  error(where: string): TsgeError;
}

/** The deadline for `timeoutMs` from now; undefined without one. Rejects a value that is not a positive number. */
export function createDeadline(timeoutMs: unknown): Deadline | undefined {
  if (timeoutMs === undefined) return undefined;
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || Number.isNaN(timeoutMs)) {
    throw TsgeError.of('TSGE-E7002', {
      option: 'RunOptions.timeoutMs',
      value: String(timeoutMs),
      reason: 'expected a positive number of milliseconds',
    });
  }
  if (timeoutMs === Number.POSITIVE_INFINITY) return undefined;
  const at = performance.now() + timeoutMs;
  const error = (where: string): TsgeError => TsgeError.of('TSGE-E6080', { timeoutMs, where });
  return {
    timeoutMs,
    at,
    expired: () => performance.now() >= at,
    error,
  };
}
