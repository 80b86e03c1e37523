import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FuzzCampaignV1, FuzzSeed } from './campaign.js';
import { type CaseResult, FAILURES, OUTCOMES, type Outcome } from './classify.js';
import type { ChildPool } from './pool.js';
import { createRng, deriveSeed } from './rng.js';

export interface CampaignRunOptions {
  readonly campaign: FuzzCampaignV1;
  readonly seeds: readonly FuzzSeed[];
  readonly pool: ChildPool;
  readonly cases: number;
  /** The run's seed: with the same seeds and campaign, the same number gives the same cases. */
  readonly seed: number;
  /** Where reproducers go (`<outDir>/<campaign>/...`). */
  readonly outDir: string;
  /** Tries spent shrinking each new failure (0: write it as found). */
  readonly minimizeTries?: number;
  readonly log?: (line: string) => void;
}

export interface FailureRecord {
  readonly outcome: Outcome;
  readonly signature: string;
  /** How many cases failed this way. */
  count: number;
  readonly caseIndex: number;
  readonly seedFile: string;
  readonly message: string;
  readonly reproducer: string;
  readonly bytes: number;
}

export interface CampaignReport {
  readonly campaign: string;
  readonly cases: number;
  readonly seeds: number;
  readonly seed: number;
  readonly ms: number;
  readonly counts: Record<Outcome, number>;
  readonly failures: FailureRecord[];
  /** Catalog codes of coded errors, with counts (what the readers answered). */
  readonly codes: Record<string, number>;
  /** Cases that timed out once and finished when run again (counted by their second outcome). */
  readonly slow: number;
}

/** Steps a case applies (1 to 4, mostly few): each step's randomness depends only on (case, step). */
function plan(seed: number, campaign: string, index: number, seeds: number): { seedIndex: number; steps: number[]; caseSeed: number } {
  const caseSeed = deriveSeed(seed, campaign, index);
  const rng = createRng(caseSeed);
  const seedIndex = rng.int(seeds);
  const count = rng.pick([1, 1, 1, 2, 2, 3, 4]);
  return { seedIndex, steps: Array.from({ length: count }, (_, i) => i), caseSeed };
}

/** Case `index` of a run with `seed`, as the run builds it: its seed file and its mutated bytes. */
export function regenerateCase(
  campaign: FuzzCampaignV1,
  seeds: readonly FuzzSeed[],
  seed: number,
  index: number,
): { seedFile: FuzzSeed; bytes: Uint8Array } {
  const { seedIndex, steps, caseSeed } = plan(seed, campaign.name, index, seeds.length);
  const seedFile = seeds[seedIndex];
  if (!seedFile) throw new Error(`campaign ${campaign.name} has no seeds`);
  return { seedFile, bytes: buildCase(campaign, seedFile.bytes, caseSeed, steps) };
}

/** The input of a case: its seed file with the given steps applied in order. */
export function buildCase(campaign: FuzzCampaignV1, seedBytes: Uint8Array, caseSeed: number, steps: readonly number[]): Uint8Array {
  let bytes = seedBytes;
  for (const step of steps) bytes = campaign.mutate(bytes, createRng(deriveSeed(caseSeed, 'step', step)));
  return bytes;
}

/**
 * What makes two failures the same defect: outcome, error name and code, and for engine errors the
 * first stack frame in a source file (`function@packages/x/src/file.ts`, the same on every machine).
 */
export function signatureOf(result: CaseResult): string {
  return [result.outcome, result.errorName ?? '', result.code ?? '', result.outcome === 'engine' ? sourceFrame(result.stack) : ''].join(
    '|',
  );
}

function sourceFrame(stack: string | undefined): string {
  for (const line of stack?.split('\n') ?? []) {
    const m = /^\s*at (?:(.+?) \()?(.+?):\d+:\d+\)?$/.exec(line);
    if (!m?.[2] || m[2].startsWith('node:') || !m[2].includes('/')) continue;
    const file = m[2].replace(/^file:\/\//, '').replace(/^.*?\/(?=(?:packages|apps|tools)\/)/, '');
    return `${m[1] ?? '<anonymous>'}@${file}`;
  }
  return '';
}

/** Runs `cases` cases of one campaign over the pool; writes one minimized reproducer per new failure signature. */
export async function runCampaign(options: CampaignRunOptions): Promise<CampaignReport> {
  const { campaign, seeds, pool, cases } = options;
  const log = options.log ?? (() => {});
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const codes: Record<string, number> = {};
  // per signature, the lowest-index case that failed that way: cases finish in any order, and the
  // reproducer's name and note must not depend on which one the pool happened to finish first
  const failures = new Map<string, { record: FailureRecord; found: FoundCase }>();
  const started = performance.now();
  let next = 0;
  let done = 0;
  let slow = 0;

  const worker = async (): Promise<void> => {
    for (;;) {
      const index = next++;
      if (index >= cases) return;
      const { seedIndex, steps, caseSeed } = plan(options.seed, campaign.name, index, seeds.length);
      const seedFile = seeds[seedIndex] as FuzzSeed;
      const bytes = buildCase(campaign, seedFile.bytes, caseSeed, steps);
      let result = await pool.run(campaign.name, bytes);
      if (result.outcome === 'hang') {
        // a busy machine can slow a case past the timeout: a hang counts when a fresh process hangs again
        const again = await pool.run(campaign.name, bytes);
        if (again.outcome !== 'hang') {
          slow++;
          result = again;
        }
      }
      counts[result.outcome]++;
      if (result.outcome === 'coded' && result.code) codes[result.code] = (codes[result.code] ?? 0) + 1;
      if (FAILURES.has(result.outcome)) {
        const signature = signatureOf(result);
        const known = failures.get(signature);
        if (known && known.record.caseIndex < index) known.record.count++;
        else {
          const record: FailureRecord = {
            outcome: result.outcome,
            signature,
            count: (known?.record.count ?? 0) + 1,
            caseIndex: index,
            seedFile: seedFile.name,
            message: result.message ?? '',
            reproducer: path.join(
              options.outDir,
              campaign.name,
              `${result.outcome}-${result.errorName ?? 'x'}-case${index}${campaign.extension}`,
            ),
            bytes: bytes.length,
          };
          failures.set(signature, { record, found: { seedFile, caseSeed, steps, bytes, result } });
          if (!known)
            log(
              `  ${campaign.name} case ${index}: ${result.outcome} ${result.errorName ?? ''} ${result.code ?? ''} ${result.message?.slice(0, 300) ?? ''}`,
            );
        }
      }
      done++;
      if (done % 500 === 0) log(`  ${campaign.name}: ${done}/${cases} (${Math.round((performance.now() - started) / 1000)} s)`);
    }
  };
  // as many cases in flight as the pool has processes, plus one queued each so none idles
  await Promise.all(Array.from({ length: Math.max(1, options.pool.size * 2) }, worker));
  const found = [...failures.values()];
  for (const { record, found: found1 } of found) await writeReproducer(options, record, found1);
  return {
    campaign: campaign.name,
    cases,
    seeds: seeds.length,
    seed: options.seed,
    ms: performance.now() - started,
    counts,
    failures: found.map((f) => f.record),
    codes,
    slow,
  };
}

interface FoundCase {
  readonly seedFile: FuzzSeed;
  readonly caseSeed: number;
  readonly steps: readonly number[];
  readonly bytes: Uint8Array;
  readonly result: CaseResult;
}

/**
 * Shrinks a failing case while it fails the same way (first with fewer mutation steps, then with
 * the campaign's own smaller variants), then writes the input and a JSON note beside it.
 */
async function writeReproducer(options: CampaignRunOptions, record: FailureRecord, found: FoundCase): Promise<void> {
  const { campaign, pool } = options;
  let tries = options.minimizeTries ?? (record.outcome === 'engine' ? 200 : 2);
  const same = async (bytes: Uint8Array): Promise<boolean> => {
    tries--;
    return signatureOf(await pool.run(campaign.name, bytes)) === record.signature;
  };
  let steps = [...found.steps];
  let bytes = found.bytes;
  for (let i = 0; i < steps.length && steps.length > 1 && tries > 0; ) {
    const fewer = steps.filter((_, j) => j !== i);
    const candidate = buildCase(campaign, found.seedFile.bytes, found.caseSeed, fewer);
    if (await same(candidate)) {
      steps = fewer;
      bytes = candidate;
    } else i++;
  }
  if (campaign.shrink) {
    let progress = true;
    while (progress && tries > 0) {
      progress = false;
      for (const candidate of campaign.shrink(bytes)) {
        if (tries <= 0) break;
        if (candidate.length < bytes.length && (await same(candidate))) {
          bytes = candidate;
          progress = true;
          break;
        }
      }
    }
  }
  await mkdir(path.dirname(record.reproducer), { recursive: true });
  await writeFile(record.reproducer, bytes);
  const note = {
    campaign: campaign.name,
    outcome: record.outcome,
    errorName: found.result.errorName,
    code: found.result.code,
    message: found.result.message,
    stack: found.result.stack,
    runSeed: options.seed,
    caseIndex: record.caseIndex,
    seedFile: found.seedFile.name,
    steps: steps.length,
    bytes: bytes.length,
    originalBytes: found.bytes.length,
    replay: `pnpm fuzz --campaign ${campaign.name} --replay ${record.reproducer}`,
    regenerate: `pnpm fuzz --campaign ${campaign.name} --seed ${options.seed} --case ${record.caseIndex}`,
  };
  await writeFile(`${record.reproducer}.json`, `${JSON.stringify(note, null, 2)}\n`);
}
