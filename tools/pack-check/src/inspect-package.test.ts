import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectPackage } from './inspect-package.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function extracted(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pack-check-'));
  roots.push(root);
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), content);
  }
  return root;
}

const manifest = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: '@x/a', exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }, ...extra });

describe('inspectPackage', () => {
  it('accepts a clean package whose maps carry their sources', () => {
    const root = extracted({
      'package.json': manifest({ dependencies: { '@x/b': '^1.0.0' } }),
      'README.md': '# a',
      'dist/index.js': 'export const a = 1;\n//# sourceMappingURL=index.js.map',
      'dist/index.d.ts': 'export declare const a = 1;',
      'dist/index.js.map': JSON.stringify({
        version: 3,
        file: 'index.js',
        sources: ['../src/index.ts'],
        sourcesContent: ['export const a = 1;'],
      }),
    });
    expect(inspectPackage(root)).toEqual([]);
  });

  it('reports test files, test imports, dangling maps, a missing README and a development manifest', () => {
    const root = extracted({
      'package.json': manifest({
        exports: { '.': { '@tsge/source': './src/index.ts', default: './dist/index.js' }, './extra': './dist/extra.js' },
        dependencies: { '@x/b': 'workspace:^' },
      }),
      'dist/index.js': 'export const a = 1;',
      'dist/helpers.fixture.js': 'export const f = 1;',
      'dist/nn/test-support.js': "import { expect } from 'vitest';\nexport const t = expect;",
      'dist/index.js.map': JSON.stringify({ version: 3, file: 'index.js', sources: ['../src/index.ts'] }),
    });
    const messages = inspectPackage(root).map((p) => `${p.file}: ${p.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        'README.md: missing: every public package has a README',
        'dist/helpers.fixture.js: test code (by its name) in the tarball',
        'dist/nn/test-support.js: imports a test framework',
        'dist/index.js.map: source map points at src/index.ts, which the tarball lacks (and carries no sourcesContent)',
        'package.json: dependencies.@x/b is still workspace:^',
        'package.json: exports keep the development condition @tsge/source',
        'package.json: exports ./dist/extra.js, which the tarball lacks',
      ]),
    );
    expect(messages).toHaveLength(7 + 1); // + the @tsge/source target ./src/index.ts, which is absent too
  });
});
