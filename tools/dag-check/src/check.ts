import { readFileSync } from 'node:fs';
import path from 'node:path';
import { exportsSubpath } from './exports-map.js';
import { extractImports } from './imports.js';
import { ACCEPTED_EXCEPTIONS, type AcceptedException, isAllowed, RULES, type Role, roleOf } from './rules.js';
import { listSourceFiles, listWorkspacePackages, type WorkspacePackage } from './workspace.js';

export type FindingKind =
  | 'forbidden-import' // (a) the ARCHITECTURE.md table does not allow it
  | 'internal-import' // (b) `@tsge/x/src/...`, `@tsge/x/dist/...`
  | 'unexported-subpath' // (b) a subpath missing from the target's `exports`
  | 'relative-escape' // (b) a relative import leaving the package folder
  | 'undeclared-dependency' // (c) not in dependencies / devDependencies / peerDependencies
  | 'dev-dependency-in-source' // (c) a published source file importing a devDependency
  | 'unknown-package' // `@tsge/x` that is not a workspace package
  | 'unlisted-package' // a workspace package the table does not cover
  | 'value-import' // warning: a value import where the table says "types only"
  | 'accepted-exception'; // warning: a forbidden import accepted for now, with a reason

export interface Finding {
  readonly kind: FindingKind;
  readonly severity: 'error' | 'warning';
  readonly packageName: string;
  /** File relative to the workspace root, with forward slashes. */
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

export interface CheckResult {
  readonly packages: number;
  readonly files: number;
  readonly imports: number;
  readonly findings: readonly Finding[];
}

export interface CheckOptions {
  readonly exceptions?: readonly AcceptedException[];
}

const TSGE_SCOPE = '@tsge/';

function splitSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const name = parts.slice(0, 2).join('/');
  const rest = parts.slice(2).join('/');
  return { name, subpath: rest ? `./${rest}` : '.' };
}

function declares(manifest: WorkspacePackage['manifest'], name: string): boolean {
  return [manifest.dependencies, manifest.devDependencies, manifest.peerDependencies, manifest.optionalDependencies].some(
    (dependencies) => dependencies !== undefined && Object.hasOwn(dependencies, name),
  );
}

/** Tests, benchmarks, scripts and fixtures may use devDependencies; shipped sources may not. */
function isDevelopmentFile(relativeFile: string): boolean {
  return /(\.(test|spec|bench)\.[cm]?[jt]sx?$)|(^|\/)(test|tests|__tests__|__fixtures__|fixtures|scripts|bench)\//.test(relativeFile);
}

function isInside(directory: string, file: string): boolean {
  const relative = path.relative(directory, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Checks every workspace package under `root` against the table and the package-boundary rules. */
export function checkWorkspace(root: string, options: CheckOptions = {}): CheckResult {
  const exceptions = options.exceptions ?? ACCEPTED_EXCEPTIONS;
  const packages = listWorkspacePackages(root);
  const byName = new Map(packages.map((workspacePackage) => [workspacePackage.name, workspacePackage]));
  const findings: Finding[] = [];
  let fileCount = 0;
  let importCount = 0;

  for (const workspacePackage of packages) {
    const role = roleOf(workspacePackage);
    const manifestFile = `${workspacePackage.relativeDirectory}/package.json`;
    if (role === undefined && workspacePackage.name.startsWith(TSGE_SCOPE)) {
      findings.push({
        kind: 'unlisted-package',
        severity: 'error',
        packageName: workspacePackage.name,
        file: manifestFile,
        line: 1,
        message: `${workspacePackage.name} has no row in the ARCHITECTURE.md §2 table (add it there and to tools/dag-check/src/rules.ts)`,
      });
    }
    for (const file of listSourceFiles(workspacePackage.directory)) {
      fileCount++;
      const relativeFile = path.relative(root, file).split(path.sep).join('/');
      for (const reference of extractImports(file, readFileSync(file, 'utf8'))) {
        importCount++;
        const at = { packageName: workspacePackage.name, file: relativeFile, line: reference.line };
        const { specifier } = reference;
        if (specifier.startsWith('.') || path.isAbsolute(specifier)) {
          if (!isInside(workspacePackage.directory, path.resolve(path.dirname(file), specifier))) {
            findings.push({
              ...at,
              kind: 'relative-escape',
              severity: 'error',
              message: `'${specifier}' leaves ${workspacePackage.relativeDirectory}; import other packages by name`,
            });
          }
          continue;
        }
        if (!specifier.startsWith(TSGE_SCOPE)) continue;
        const { name, subpath } = splitSpecifier(specifier);
        const target = byName.get(name);
        if (!target) {
          findings.push({
            ...at,
            kind: 'unknown-package',
            severity: 'error',
            message: `'${specifier}': ${name} is not a workspace package`,
          });
          continue;
        }
        if (/^\.\/(src|dist)(\/|$)/.test(subpath)) {
          findings.push({
            ...at,
            kind: 'internal-import',
            severity: 'error',
            message: `'${specifier}' reaches into ${name}'s internals; import '${name}' or a subpath its exports declare`,
          });
        } else if (!exportsSubpath(target.manifest.exports, subpath)) {
          findings.push({
            ...at,
            kind: 'unexported-subpath',
            severity: 'error',
            message: `'${specifier}': ${name} does not export '${subpath}'`,
          });
        }
        if (target === workspacePackage) continue;
        if (!declares(workspacePackage.manifest, name)) {
          findings.push({
            ...at,
            kind: 'undeclared-dependency',
            severity: 'error',
            message: `'${specifier}': ${name} is not declared in ${manifestFile} (add "${name}": "workspace:^")`,
          });
        } else if (
          workspacePackage.manifest.private !== true &&
          !isDevelopmentFile(path.relative(workspacePackage.directory, file).split(path.sep).join('/')) &&
          !reference.typeOnly &&
          !declares({ ...workspacePackage.manifest, devDependencies: undefined }, name)
        ) {
          findings.push({
            ...at,
            kind: 'dev-dependency-in-source',
            severity: 'error',
            message: `'${specifier}': ${name} is only a devDependency of ${workspacePackage.name}, but this published file needs it at run time`,
          });
        }
        const targetRole = roleOf(target);
        if (role === undefined || targetRole === undefined) continue;
        checkTable(role, targetRole, reference.typeOnly, { ...at, name, exceptions, findings });
      }
    }
  }
  findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.kind.localeCompare(b.kind));
  return { packages: packages.length, files: fileCount, imports: importCount, findings };
}

interface TableContext {
  readonly packageName: string;
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly exceptions: readonly AcceptedException[];
  readonly findings: Finding[];
}

function checkTable(role: Role, targetRole: Role, typeOnly: boolean, context: TableContext): void {
  const { packageName, file, line, name, exceptions, findings } = context;
  const at = { packageName, file, line };
  if (!isAllowed(role, targetRole)) {
    const exception = exceptions.find((candidate) => candidate.from === packageName && candidate.to === name);
    if (exception) {
      findings.push({
        ...at,
        kind: 'accepted-exception',
        severity: 'warning',
        message: `${packageName} → ${name} accepted: ${exception.reason}`,
      });
    } else {
      const allowed = RULES[role].mayImport;
      findings.push({
        ...at,
        kind: 'forbidden-import',
        severity: 'error',
        message: `${packageName} (${role}) may not import ${name} (${targetRole}); allowed: ${allowed === 'any' ? 'any' : allowed.join(', ') || 'nothing of ours'}`,
      });
    }
  } else if (!typeOnly && RULES[role].typesOnly?.includes(targetRole)) {
    findings.push({
      ...at,
      kind: 'value-import',
      severity: 'warning',
      message: `${packageName} imports values from ${name}; ARCHITECTURE.md allows types only`,
    });
  }
}

export function formatFinding(finding: Finding): string {
  return `${finding.file}:${finding.line}: ${finding.severity} [${finding.kind}] ${finding.message}`;
}
