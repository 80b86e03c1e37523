import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The parts of a package.json the checks read. */
export interface PackageManifest {
  readonly name?: string;
  readonly private?: boolean;
  readonly exports?: unknown;
  readonly main?: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
}

export interface WorkspacePackage {
  readonly name: string;
  /** Absolute folder of the package. */
  readonly directory: string;
  /** Folder relative to the workspace root, with forward slashes (`packages/parsers/onnx`). */
  readonly relativeDirectory: string;
  readonly manifest: PackageManifest;
}

/** Reads the `packages:` globs of pnpm-workspace.yaml (only the `dir/*` and plain-folder forms we use). */
export function readWorkspaceGlobs(root: string): string[] {
  const file = path.join(root, 'pnpm-workspace.yaml');
  if (!existsSync(file)) return [];
  const globs: string[] = [];
  let inPackages = false;
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    if (/^\S/.test(line)) inPackages = /^packages\s*:/.test(line);
    else if (inPackages) {
      const match = /^\s+-\s+['"]?([^'"#]+?)['"]?\s*(#.*)?$/.exec(line);
      if (match) globs.push(match[1]);
    }
  }
  return globs;
}

function readManifest(directory: string): PackageManifest | undefined {
  const file = path.join(directory, 'package.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as PackageManifest;
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function expandGlob(root: string, glob: string): string[] {
  const parts = glob.replace(/\/+$/, '').split('/');
  let candidates = [root];
  for (const part of parts) {
    const next: string[] = [];
    for (const candidate of candidates) {
      if (part === '*' || part === '**') {
        for (const entry of readdirSync(candidate).sort()) {
          const child = path.join(candidate, entry);
          if (entry !== 'node_modules' && !entry.startsWith('.') && isDirectory(child)) next.push(child);
        }
      } else if (isDirectory(path.join(candidate, part))) next.push(path.join(candidate, part));
    }
    candidates = next;
  }
  return candidates;
}

/** Lists the workspace packages (folders matched by pnpm-workspace.yaml that hold a named package.json), sorted by folder. */
export function listWorkspacePackages(root: string): WorkspacePackage[] {
  const globs = readWorkspaceGlobs(root);
  const excluded = new Set(globs.filter((glob) => glob.startsWith('!')).flatMap((glob) => expandGlob(root, glob.slice(1))));
  const directories = new Set<string>();
  for (const glob of globs) {
    if (glob.startsWith('!')) continue;
    for (const directory of expandGlob(root, glob)) if (!excluded.has(directory)) directories.add(directory);
  }
  const packages: WorkspacePackage[] = [];
  for (const directory of [...directories].sort()) {
    const manifest = readManifest(directory);
    if (!manifest?.name) continue;
    packages.push({
      name: manifest.name,
      directory,
      relativeDirectory: path.relative(root, directory).split(path.sep).join('/'),
      manifest,
    });
  }
  return packages;
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.jsx'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'coverage', '.turbo']);

/** Source files of a package, excluding build output and nested packages. Sorted for stable output. */
export function listSourceFiles(directory: string): string[] {
  const files: string[] = [];
  const walk = (folder: string, isRoot: boolean): void => {
    if (!isRoot && existsSync(path.join(folder, 'package.json'))) return;
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue;
      const child = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(child, false);
      } else if (SOURCE_EXTENSIONS.some((extension) => entry.name.endsWith(extension))) files.push(child);
    }
  };
  walk(directory, true);
  return files;
}
