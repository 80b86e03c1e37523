import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { TestResult } from './run-test.js';

/** `test_name  # reason` per line; blank lines and lines starting with # are ignored. */
export function readExpectedFailures(file: string): Map<string, string> {
  const list = new Map<string, string>();
  if (!existsSync(file)) return list;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const hash = trimmed.indexOf('#');
    const name = (hash >= 0 ? trimmed.slice(0, hash) : trimmed).trim();
    const reason = hash >= 0 ? trimmed.slice(hash + 1).trim() : '';
    if (name) list.set(name, reason);
  }
  return list;
}

/**
 * Rewrites the list from a run: entries of tests that ran are replaced by the current failures;
 * entries of tests this run did not cover (filtered out) are kept.
 */
export function writeExpectedFailures(file: string, previous: ReadonlyMap<string, string>, results: readonly TestResult[]): void {
  const ran = new Set(results.map((r) => r.name));
  const entries = new Map<string, string>();
  for (const [name, reason] of previous) if (!ran.has(name)) entries.set(name, reason);
  for (const r of results) if (r.status === 'failed') entries.set(r.name, r.reason.replace(/\s+/g, ' ').slice(0, 160));
  const lines = [...entries.keys()].sort().map((name) => `${name}  # ${entries.get(name) ?? ''}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
}
