import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Extractor, ExtractorConfig, ExtractorLogLevel, type ExtractorMessage } from '@microsoft/api-extractor';
import { emitDeclarations } from './declarations.js';
import { listPublicPackages, type PublicPackage, unscopedName } from './packages.js';

export interface ReportResult {
  readonly packageName: string;
  /** Report path relative to the workspace root. */
  readonly reportFile: string;
  /** The report differs from the checked-in one (or is missing); in update mode it was rewritten. */
  readonly changed: boolean;
  /** Errors api-extractor reported (a forgotten export, an unresolvable import...), formatted. */
  readonly errors: readonly string[];
}

export interface ReportOptions {
  /** true: write etc/*.api.md; false: compare only (CI). */
  readonly update: boolean;
  readonly packages?: readonly PublicPackage[];
}

/**
 * Runs api-extractor on every public package. Types from other workspace packages are analysed as
 * part of the package (`bundledPackages`), so a type a package's API names but does not export is
 * an `ae-forgotten-export` error even when it comes from @tsge/metadef: users of a package must be
 * able to name every type in its signatures by importing that package.
 */
export function runReports(root: string, options: ReportOptions): ReportResult[] {
  const packages = options.packages ?? listPublicPackages(root);
  const temp = mkdtempSync(path.join(os.tmpdir(), 'tsge-api-'));
  try {
    const declarationsDir = path.join(temp, 'dts');
    const entries = emitDeclarations(root, packages, declarationsDir);
    // Workspace specifiers resolve to the emitted declarations, never to dist/ (no build needed).
    const paths: Record<string, string[]> = {};
    for (const p of packages) paths[p.name] = [entries.get(p.name) as string];
    return packages.map((p) => reportOne(root, p, { entry: entries.get(p.name) as string, paths, temp, packages, update: options.update }));
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

interface OneOptions {
  readonly entry: string;
  readonly paths: Record<string, string[]>;
  readonly temp: string;
  readonly packages: readonly PublicPackage[];
  readonly update: boolean;
}

function reportOne(root: string, p: PublicPackage, o: OneOptions): ReportResult {
  const reportName = unscopedName(p.name);
  const config = ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    packageJsonFullPath: path.join(p.directory, 'package.json'),
    configObject: {
      projectFolder: p.directory,
      mainEntryPointFilePath: o.entry,
      bundledPackages: o.packages.map((x) => x.name).filter((name) => name !== p.name),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2023'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: true,
            ...(existsSync(path.join(root, 'node_modules', '@types', 'node'))
              ? { types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')] }
              : { types: [] }),
            paths: o.paths,
          },
          files: [o.entry],
        },
      },
      apiReport: {
        enabled: true,
        reportFolder: path.join(p.directory, 'etc'),
        reportTempFolder: path.join(o.temp, 'reports', reportName),
        reportFileName: reportName,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.Error, addToApiReportFile: false },
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
          // Comments are free prose here, not TSDoc; undocumented members are not an error.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
  });
  const errors: string[] = [];
  const reportFile = path.join(p.directory, 'etc', `${reportName}.api.md`);
  const before = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : undefined;
  if (o.update) mkdirSync(path.dirname(reportFile), { recursive: true });
  const result = Extractor.invoke(config, {
    localBuild: o.update,
    showVerboseMessages: false,
    messageCallback: (message: ExtractorMessage) => {
      if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning) {
        if (!message.messageId.startsWith('console-')) errors.push(`${p.name}: ${message.formatMessageWithLocation(root)}`);
      }
      message.handled = true;
    },
  });
  const after = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : undefined;
  return {
    packageName: p.name,
    reportFile: path.relative(root, reportFile).split(path.sep).join('/'),
    changed: o.update ? before !== after : result.apiReportChanged || before === undefined,
    errors,
  };
}
