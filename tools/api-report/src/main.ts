#!/usr/bin/env node
// `pnpm api:update` writes etc/<name>.api.md for every public package with api-extractor;
// `pnpm api:check` (--check) compares them with the code and exits 1 when a report is missing or
// stale, or when api-extractor reports an error (a forgotten export is one).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runReports } from './api-report.js';

const { values, positionals } = parseArgs({ options: { check: { type: 'boolean', default: false } }, allowPositionals: true });
const root = path.resolve(positionals[0] ?? process.cwd());
const started = performance.now();
const results = runReports(root, { update: !values.check });
const errors = results.flatMap((r) => r.errors);
for (const error of errors) console.error(error);
const changed = results.filter((r) => r.changed);
for (const r of changed)
  console.log(values.check ? `${r.reportFile}: missing or differs from the code of ${r.packageName}` : `wrote ${r.reportFile}`);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `api-report: ${results.length} packages, ${changed.length} ${values.check ? 'stale' : 'updated'} report(s), ${errors.length} error(s) in ${seconds} s` +
    (values.check && changed.length ? ': run `pnpm api:update`, review and commit etc/*.api.md' : ''),
);
process.exitCode = errors.length > 0 || (values.check && changed.length > 0) ? 1 : 0;
