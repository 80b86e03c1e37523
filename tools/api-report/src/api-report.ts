import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { listPublicPackages, type PublicPackage } from './packages.js';
import { collectApi, compilerOptionsFor, createCachingHost, renderReport } from './report.js';

export interface ReportResult {
  readonly packageName: string;
  /** Report path relative to the workspace root. */
  readonly reportFile: string;
  readonly expected: string;
  /** The checked-in text, or undefined when missing. */
  readonly actual: string | undefined;
}

/** Generates the report of every public package in memory and reads the checked-in one beside it. */
export function generateReports(root: string, packages: readonly PublicPackage[] = listPublicPackages(root)): ReportResult[] {
  const results: ReportResult[] = [];
  let host: ts.CompilerHost | undefined;
  for (const publicPackage of packages) {
    const options = compilerOptionsFor(publicPackage.directory);
    host ??= createCachingHost(options);
    const program = ts.createProgram({ rootNames: [publicPackage.entry], options, host });
    const expected = renderReport(publicPackage.name, collectApi(program, publicPackage.entry, host));
    const actual = existsSync(publicPackage.reportFile) ? readFileSync(publicPackage.reportFile, 'utf8') : undefined;
    results.push({
      packageName: publicPackage.name,
      reportFile: path.relative(root, publicPackage.reportFile).split(path.sep).join('/'),
      expected,
      actual,
    });
  }
  return results;
}

export function writeReports(root: string, results: readonly ReportResult[]): string[] {
  const written: string[] = [];
  for (const result of results) {
    if (result.actual === result.expected) continue;
    const file = path.join(root, result.reportFile);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, result.expected);
    written.push(result.reportFile);
  }
  return written;
}

/** A short summary of how two texts differ: counts and the first changed lines of each side. */
export function summarizeDifference(actual: string, expected: string, maxLines = 12): string {
  const actualLines = actual.split('\n');
  const expectedLines = expected.split('\n');
  const actualCounts = new Map<string, number>();
  for (const line of actualLines) actualCounts.set(line, (actualCounts.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const line of expectedLines) {
    const count = actualCounts.get(line) ?? 0;
    if (count > 0) actualCounts.set(line, count - 1);
    else added.push(line);
  }
  const removed: string[] = [];
  for (const [line, count] of actualCounts) for (let index = 0; index < count; index++) removed.push(line);
  // Blank lines and `// kind` markers are counted but not shown: they say nothing on their own.
  const telling = (line: string): boolean => line.trim() !== '' && !/^\/\/ \w+$/.test(line);
  const shown = [
    ...removed
      .filter(telling)
      .slice(0, maxLines)
      .map((line) => `  - ${line}`),
    ...added
      .filter(telling)
      .slice(0, maxLines)
      .map((line) => `  + ${line}`),
  ];
  return [`  ${removed.length} line(s) removed, ${added.length} line(s) added (- checked in, + from the code)`, ...shown].join('\n');
}
