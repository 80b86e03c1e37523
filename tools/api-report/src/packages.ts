import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface PublicPackage {
  readonly name: string;
  /** Absolute folder of the package. */
  readonly directory: string;
  /** `packages/parsers/onnx/etc/parser-onnx.api.md`, absolute. */
  readonly reportFile: string;
  /** Absolute path of the package's `src/index.ts`. */
  readonly entry: string;
}

const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'etc', 'src', 'coverage']);

/** The name without its scope: `@tsge/parser-onnx` → `parser-onnx`. */
export function unscopedName(name: string): string {
  return name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
}

/** Every `packages/**` package that is not `"private": true` and has a `src/index.ts`, sorted by name. */
export function listPublicPackages(root: string): PublicPackage[] {
  const found: PublicPackage[] = [];
  const walk = (folder: string): void => {
    const manifestFile = path.join(folder, 'package.json');
    if (existsSync(manifestFile)) {
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { name?: string; private?: boolean };
      const entry = path.join(folder, 'src', 'index.ts');
      if (manifest.name && manifest.private !== true && existsSync(entry)) {
        found.push({
          name: manifest.name,
          directory: folder,
          reportFile: path.join(folder, 'etc', `${unscopedName(manifest.name)}.api.md`),
          entry,
        });
      }
    }
    for (const child of readdirSync(folder, { withFileTypes: true })) {
      if (child.isDirectory() && !child.name.startsWith('.') && !SKIPPED_FOLDERS.has(child.name)) walk(path.join(folder, child.name));
    }
  };
  const packagesFolder = path.join(root, 'packages');
  if (existsSync(packagesFolder)) walk(packagesFolder);
  return found.sort((a, b) => a.name.localeCompare(b.name));
}
