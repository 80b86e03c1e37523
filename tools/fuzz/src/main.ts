// `pnpm fuzz`: runs the registered campaigns and prints counts per outcome; exits 1 when any case
// ended in an uncaught engine error, a hang, a crash or running out of memory.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CampaignRegistry, FuzzCampaignV1 } from './campaign.js';
import { FAILURES, OUTCOMES } from './classify.js';
import { createChildPool } from './pool.js';
import { type CampaignReport, regenerateCase, runCampaign, signatureOf } from './run-campaign.js';

export const USAGE = `usage: pnpm fuzz [options]
  --campaign NAME     a campaign to run (repeatable; default all): ${'{list}'}
  --cases N           cases per campaign (default 1000)
  --seed N            run seed (default 1); the same seed gives the same cases
  --jobs N            child processes (default 2)
  --timeout-ms N      a case not done by then is a hang (default 5000)
  --rss-mb N          a child above this resident memory is out of memory (default 2048)
  --out DIR           reproducers (default out/fuzz)
  --testdata DIR      seed files (default ../shared/testdata)
  --json FILE         write the reports as JSON
  --known FILE        failure signatures that do not fail the run (one per line, # comments)
  --replay FILE       run one file through --campaign and print its outcome
  --case N            regenerate case N of --seed into --out and run it
  --minimize-tries N  runs spent shrinking each new failure (default 200 for engine errors)
  --list              list the campaigns
  --help`;

export interface FuzzCliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const int = (name: string, value: string | undefined, fallback: number, min = 0): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} expects an integer ≥ ${min}, got ${JSON.stringify(value)}`);
  return n;
};

/** The fuzz command over a registry (the default one, or a test's); returns the exit code. */
export async function fuzzMain(
  argv: readonly string[],
  registryUrl: string,
  io: FuzzCliIo = { out: console.log, err: console.error },
): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      campaign: { type: 'string', multiple: true },
      cases: { type: 'string' },
      seed: { type: 'string' },
      jobs: { type: 'string' },
      'timeout-ms': { type: 'string' },
      'rss-mb': { type: 'string' },
      out: { type: 'string' },
      testdata: { type: 'string' },
      json: { type: 'string' },
      known: { type: 'string' },
      replay: { type: 'string' },
      case: { type: 'string' },
      'minimize-tries': { type: 'string' },
      list: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  const { registry } = (await import(registryUrl)) as { registry: CampaignRegistry };
  const names = registry.list().map((c) => c.name);
  if (values.help) {
    io.out(USAGE.replace('{list}', names.join(', ')));
    return 0;
  }
  if (values.list) {
    for (const c of registry.list()) io.out(`${c.name.padEnd(12)} ${c.description}`);
    return 0;
  }
  const chosen: FuzzCampaignV1[] = (values.campaign ?? names).map((name) => {
    const c = registry.get(name);
    if (!c) throw new Error(`unknown campaign ${name}; campaigns: ${names.join(', ')}`);
    return c;
  });
  const seed = int('seed', values.seed, 1);
  const outDir = path.resolve(values.out ?? 'out/fuzz');
  const testdata = path.resolve(values.testdata ?? '../shared/testdata');
  const pool = createChildPool({
    size: int('jobs', values.jobs, 2, 1),
    registryUrl,
    timeoutMs: int('timeout-ms', values['timeout-ms'], 5000, 1),
    rssLimitBytes: int('rss-mb', values['rss-mb'], 2048, 64) * 1024 * 1024,
  });
  try {
    if (values.replay !== undefined || values.case !== undefined) {
      const campaign = chosen.length === 1 ? chosen[0] : undefined;
      if (!campaign) throw new Error('--replay and --case need exactly one --campaign');
      let bytes: Uint8Array;
      if (values.replay !== undefined) bytes = new Uint8Array(await readFile(values.replay));
      else {
        const index = int('case', values.case, 0);
        const { seedFile, bytes: made } = regenerateCase(campaign, await campaign.seeds({ testdata }), seed, index);
        bytes = made;
        const file = path.join(outDir, campaign.name, `case${index}-seed${seed}${campaign.extension}`);
        await (await import('node:fs/promises')).mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, bytes);
        io.out(`case ${index} of seed ${seed} (from ${seedFile.name}) written to ${file}`);
      }
      const result = await pool.run(campaign.name, bytes);
      io.out(
        `${result.outcome}${result.errorName ? ` ${result.errorName}` : ''}${result.code ? ` ${result.code}` : ''}: ${result.message ?? ''}`,
      );
      if (result.stack) io.out(result.stack);
      io.out(`signature ${signatureOf(result)}`);
      return FAILURES.has(result.outcome) ? 1 : 0;
    }
    const cases = int('cases', values.cases, 1000, 1);
    const reports: CampaignReport[] = [];
    for (const campaign of chosen) {
      const seedsStarted = performance.now();
      const seeds = await campaign.seeds({ testdata });
      io.err(`${campaign.name}: ${seeds.length} seeds (${Math.round(performance.now() - seedsStarted)} ms), ${cases} cases, seed ${seed}`);
      const report = await runCampaign({
        campaign,
        seeds,
        pool,
        cases,
        seed,
        outDir,
        ...(values['minimize-tries'] !== undefined ? { minimizeTries: int('minimize-tries', values['minimize-tries'], 0) } : {}),
        log: io.err,
      });
      reports.push(report);
      io.out(formatReport(report));
    }
    if (values.json !== undefined) await writeFile(values.json, `${JSON.stringify(reports, null, 2)}\n`);
    const known = values.known !== undefined ? await readKnown(values.known) : new Set<string>();
    const seen = new Set(reports.flatMap((r) => r.failures.map((f) => f.signature)));
    for (const signature of known)
      if (!seen.has(signature))
        io.out(
          `fuzz: known defect not seen in this run (fixed, or beyond these cases; once fixed remove it from ${values.known}): ${signature}`,
        );
    const fresh = reports.flatMap((r) => r.failures.filter((f) => !known.has(f.signature)).map((f) => ({ campaign: r.campaign, f })));
    const knownSeen = [...known].filter((s) => seen.has(s)).length;
    if (knownSeen > 0) io.out(`fuzz: ${knownSeen} known defect signature(s) seen (listed in ${values.known})`);
    for (const { campaign, f } of fresh) io.out(`fuzz: new defect in ${campaign}: ${f.signature}\n  reproducer ${f.reproducer}`);
    io.out(fresh.length === 0 ? 'fuzz: no new defects' : `fuzz: ${fresh.length} new defect signature(s) (reproducers under ${outDir})`);
    return fresh.length === 0 ? 0 : 1;
  } finally {
    await pool.close();
  }
}

/** Signatures from a known-defects file: one per line, `#` starts a comment. */
async function readKnown(file: string): Promise<Set<string>> {
  const text = await readFile(file, 'utf8');
  return new Set(
    text
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean),
  );
}

export function formatReport(report: CampaignReport): string {
  const counts = OUTCOMES.map((o) => `${o} ${report.counts[o]}`).join(', ');
  const slow = report.slow > 0 ? ` (${report.slow} finished only when run again)` : '';
  const lines = [`${report.campaign}: ${report.cases} cases in ${(report.ms / 1000).toFixed(1)} s (seed ${report.seed}): ${counts}${slow}`];
  for (const f of report.failures)
    lines.push(`  ${f.outcome} ×${f.count}: ${f.message.slice(0, 200)}\n    signature ${f.signature}\n    reproducer ${f.reproducer}`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const registryUrl = new URL(import.meta.url.endsWith('.ts') ? './campaigns/index.ts' : './campaigns/index.js', import.meta.url).href;
  fuzzMain(process.argv.slice(2), registryUrl).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`fuzz: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 2;
    },
  );
}
