import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One thing wrong with a packed package, naming the file in the tarball. */
export interface Problem {
  readonly file: string;
  readonly message: string;
}

// Test code by name: tests, fixtures, test utilities and test folders never ship.
const TEST_FILE =
  /(^|\/)(__tests__|tests?|testing)\/|\.(test|spec|fixture|test-util)\.[cm]?[jt]sx?$|\.(test|spec|fixture|test-util)\.d\.[cm]?ts$/;
// A test framework imported by shipped code means test helpers leaked into the build.
const TEST_IMPORT = /(?:from\s*|import\s*\(\s*|require\s*\(\s*|import\s+)['"](?:vitest|@vitest\/[^'"]*|jest|mocha)['"]/;
const CODE_FILE = /\.([cm]?js|d\.[cm]?ts)$/;
const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'] as const;

/** Checks an extracted tarball (the folder holding its `package.json`). */
export function inspectPackage(root: string): Problem[] {
  const problems: Problem[] = [];
  const files = listFiles(root);
  const present = new Set(files);
  if (!present.has('README.md')) problems.push({ file: 'README.md', message: 'missing: every public package has a README' });
  for (const file of files) {
    if (TEST_FILE.test(file)) problems.push({ file, message: 'test code (by its name) in the tarball' });
    if (CODE_FILE.test(file) && TEST_IMPORT.test(readFileSync(path.join(root, file), 'utf8'))) {
      problems.push({ file, message: 'imports a test framework' });
    }
    if (file.endsWith('.map')) problems.push(...inspectSourceMap(root, file, present));
  }
  problems.push(...inspectManifest(root, present));
  return problems;
}

function listFiles(root: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(root, relative));
    else out.push(relative);
  }
  return out.sort();
}

/** A map must carry each source's text or point at a file the tarball has. */
function inspectSourceMap(root: string, file: string, present: ReadonlySet<string>): Problem[] {
  let map: { file?: string; sourceRoot?: string; sources?: unknown; sourcesContent?: unknown };
  try {
    map = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as typeof map;
  } catch {
    return [{ file, message: 'source map is not JSON' }];
  }
  if (!Array.isArray(map.sources)) return [{ file, message: 'source map has no sources' }];
  const contents = Array.isArray(map.sourcesContent) ? map.sourcesContent : [];
  const problems: Problem[] = [];
  const folder = path.posix.dirname(file);
  map.sources.forEach((source: unknown, index) => {
    if (typeof contents[index] === 'string') return;
    const target = path.posix.normalize(path.posix.join(folder, map.sourceRoot ?? '', String(source)));
    if (!present.has(target))
      problems.push({ file, message: `source map points at ${target}, which the tarball lacks (and carries no sourcesContent)` });
  });
  if (map.file !== undefined && !present.has(path.posix.normalize(path.posix.join(folder, map.file)))) {
    problems.push({ file, message: `source map is for ${map.file}, which the tarball lacks` });
  }
  return problems;
}

/** The published manifest: no workspace protocol, no development condition, exports that exist. */
function inspectManifest(root: string, present: ReadonlySet<string>): Problem[] {
  const file = 'package.json';
  const manifest = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Record<string, unknown>;
  const problems: Problem[] = [];
  for (const field of DEPENDENCY_FIELDS) {
    for (const [name, range] of Object.entries((manifest[field] ?? {}) as Record<string, string>)) {
      if (range.startsWith('workspace:')) problems.push({ file, message: `${field}.${name} is still ${range}` });
    }
  }
  const targets: string[] = [];
  const walk = (value: unknown, condition: string): void => {
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '@tsge/source') problems.push({ file, message: `exports keep the development condition ${key}` });
        walk(inner, key || condition);
      }
    }
  };
  walk(manifest.exports, '');
  for (const field of ['main', 'types', 'module'] as const)
    if (typeof manifest[field] === 'string') targets.push(manifest[field] as string);
  for (const target of targets) {
    if (target.includes('*')) continue;
    const relative = path.posix.normalize(target);
    if (!present.has(relative) && !existsSync(path.join(root, relative)))
      problems.push({ file, message: `exports ${target}, which the tarball lacks` });
  }
  return problems;
}
