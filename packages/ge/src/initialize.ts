import { prestartWorkers, releaseWorkers } from '@tsge/executor';
import { TsgeError } from '@tsge/metadef';
import { discoverParsers } from './parsers.js';

export interface GeOptions {
  /** Find installed parser packages now rather than on first parse (default true). */
  readonly discoverParsers?: boolean;
  /**
   * Start this many worker threads now, for the models loaded later (see `prestartWorkers`): a model
   * loaded with up to that many threads then starts none, so neither its load nor its first run
   * pays a thread's start-up. Default 0: threads start when a model needs them.
   */
  readonly workers?: number;
}

let initialized = false;

/**
 * Prepares the process-wide state (parser discovery, and worker threads if asked). Idempotent
 * except that a later call may start more workers; calling it is optional.
 */
export async function initialize(options: GeOptions = {}): Promise<void> {
  const workers = options.workers;
  if (workers !== undefined && (!Number.isSafeInteger(workers) || workers < 0))
    throw TsgeError.of('TSGE-E7002', { option: 'GeOptions.workers', value: String(workers), reason: 'expected a non-negative integer' });
  if (workers) await prestartWorkers(workers);
  if (initialized) return;
  initialized = true;
  if (options.discoverParsers !== false) await discoverParsers();
}

/** Ends the process-wide state and the idle worker threads; loaded models must be released by their owners. */
export async function finalize(): Promise<void> {
  initialized = false;
  await releaseWorkers();
}
