#!/usr/bin/env node
// `pnpm api:update` writes etc/<name>.api.md for every public package; `pnpm api:check` (--check)
// regenerates them in memory and exits 1 when a checked-in report is missing or differs.
import path from 'node:path';
import { generateReports, summarizeDifference, writeReports } from './api-report.js';

const args = process.argv.slice(2);
const check = args.includes('--check');
const root = path.resolve(args.find((arg) => !arg.startsWith('--')) ?? process.cwd());
const results = generateReports(root);

if (check) {
  const stale = results.filter((result) => result.actual !== result.expected);
  for (const result of stale) {
    if (result.actual === undefined) console.error(`${result.reportFile}: missing (${result.packageName})`);
    else
      console.error(
        `${result.reportFile}: differs from the code of ${result.packageName}\n${summarizeDifference(result.actual, result.expected)}`,
      );
  }
  console.log(
    `api-report: ${results.length} packages, ${stale.length} stale report(s)${stale.length ? ': run `pnpm api:update`, review and commit etc/*.api.md' : ''}`,
  );
  process.exitCode = stale.length > 0 ? 1 : 0;
} else {
  const written = writeReports(root, results);
  for (const file of written) console.log(`wrote ${file}`);
  console.log(`api-report: ${results.length} packages, ${written.length} report(s) updated`);
}
