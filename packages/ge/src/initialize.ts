import { discoverParsers } from './parsers.js';

export interface GeOptions {
  /** Find installed parser packages now rather than on first parse (default true). */
  readonly discoverParsers?: boolean;
}

let initialized = false;

/** Prepares the process-wide state (parser discovery). Idempotent; calling it is optional. */
export async function initialize(options: GeOptions = {}): Promise<void> {
  if (initialized) return;
  initialized = true;
  if (options.discoverParsers !== false) await discoverParsers();
}

/** Ends the process-wide state; loaded models must be released by their owners. */
export async function finalize(): Promise<void> {
  initialized = false;
}
