#!/usr/bin/env node
// `pnpm dag:check [root]`: checks package imports against ARCHITECTURE.md §2; exit 1 on any error.
import path from 'node:path';
import { checkWorkspace, formatFinding } from './check.js';

const root = path.resolve(process.argv[2] ?? process.cwd());
const result = checkWorkspace(root);
const errors = result.findings.filter((finding) => finding.severity === 'error');
const warnings = result.findings.filter((finding) => finding.severity === 'warning');
for (const finding of warnings) console.warn(formatFinding(finding));
for (const finding of errors) console.error(formatFinding(finding));
console.log(
  `dag-check: ${result.packages} packages, ${result.files} files, ${result.imports} imports: ${errors.length} errors, ${warnings.length} warnings`,
);
process.exitCode = errors.length > 0 ? 1 : 0;
