import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWorkspace, type Finding } from './check.js';
import { exportsSubpath } from './exports-map.js';
import { extractImports } from './imports.js';
import { roleOf } from './rules.js';

const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const WORKSPACE_YAML = 'packages:\n  - packages/*\n  - packages/parsers/*\n  - apps/*\n  - tools/*\n';

function manifest(name: string, dependencies: Record<string, string> = {}, exportsField: unknown = { '.': './src/index.ts' }): string {
  return JSON.stringify({ name, type: 'module', exports: exportsField, dependencies });
}

/** Writes a workspace from a map of relative paths to file contents. */
function writeTree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'dag-check-'));
  roots.push(root);
  for (const [relative, content] of Object.entries({ 'pnpm-workspace.yaml': WORKSPACE_YAML, ...files })) {
    const file = path.join(root, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return root;
}

const BASE = {
  'packages/metadef/package.json': manifest('@tsge/metadef', {}, { '.': './src/index.ts', './package.json': './package.json' }),
  'packages/metadef/src/index.ts': 'export const x = 1;\nexport type T = number;\n',
  'packages/om/package.json': manifest('@tsge/om', { '@tsge/metadef': 'workspace:^' }),
  'packages/om/src/index.ts': "import { x } from '@tsge/metadef';\nexport const y = x;\n",
};

function errors(findings: readonly Finding[]): string[] {
  return findings.filter((finding) => finding.severity === 'error').map((finding) => `${finding.kind} ${finding.file}:${finding.line}`);
}

describe('checkWorkspace', () => {
  it('accepts imports the table allows', () => {
    const result = checkWorkspace(writeTree(BASE));
    expect(result.packages).toBe(2);
    expect(result.imports).toBe(1);
    expect(result.findings).toEqual([]);
  });

  it('rejects an import the table forbids: the compiler importing the runtime', () => {
    const root = writeTree({
      ...BASE,
      'packages/runtime/package.json': manifest('@tsge/runtime', { '@tsge/metadef': 'workspace:^' }),
      'packages/runtime/src/index.ts': "export type { T } from '@tsge/metadef';\nexport const device = 1;\n",
      'packages/compiler/package.json': manifest('@tsge/compiler', { '@tsge/runtime': 'workspace:^' }),
      'packages/compiler/src/index.ts': 'export const z = 2;\n',
      'packages/compiler/src/deep/lazy.ts': "export async function load() {\n  return import('@tsge/runtime');\n}\n",
    });
    const result = checkWorkspace(root);
    expect(errors(result.findings)).toEqual(['forbidden-import packages/compiler/src/deep/lazy.ts:2']);
    expect(result.findings[0].message).toContain('@tsge/compiler (compiler) may not import @tsge/runtime (runtime)');
  });

  it('rejects parsers importing each other, also through re-exports', () => {
    const root = writeTree({
      ...BASE,
      'packages/parsers/onnx/package.json': manifest('@tsge/parser-onnx', { '@tsge/metadef': 'workspace:^' }),
      'packages/parsers/onnx/src/index.ts': 'export const onnx = 1;\n',
      'packages/parsers/caffe/package.json': manifest('@tsge/parser-caffe', { '@tsge/parser-onnx': 'workspace:^' }),
      'packages/parsers/caffe/src/index.ts': "export { onnx } from '@tsge/parser-onnx';\n",
    });
    expect(errors(checkWorkspace(root).findings)).toEqual(['forbidden-import packages/parsers/caffe/src/index.ts:1']);
  });

  it('rejects imports into internals, unexported subpaths and relative paths leaving the package', () => {
    const root = writeTree({
      ...BASE,
      'packages/om/src/bad.ts': [
        "import { x } from '@tsge/metadef/src/index.js';",
        "import type { T } from '@tsge/metadef/types';",
        "import meta from '@tsge/metadef/package.json' with { type: 'json' };",
        "import { y } from '../../metadef/src/index.js';",
        "import { here } from './fine.js';",
        'export { x, y, here, meta };',
        'export type { T };',
        '',
      ].join('\n'),
      'packages/om/src/fine.ts': 'export const here = 1;\n',
    });
    expect(errors(checkWorkspace(root).findings)).toEqual([
      'internal-import packages/om/src/bad.ts:1',
      'unexported-subpath packages/om/src/bad.ts:2',
      'relative-escape packages/om/src/bad.ts:4',
    ]);
  });

  it('rejects an @tsge import missing from package.json and an unknown @tsge package', () => {
    const root = writeTree({
      ...BASE,
      'packages/ops/package.json': manifest('@tsge/ops'),
      'packages/ops/src/index.ts':
        "import type { T } from '@tsge/metadef';\nimport { q } from '@tsge/nowhere';\nexport type U = T;\nexport { q };\n",
    });
    expect(errors(checkWorkspace(root).findings)).toEqual([
      'undeclared-dependency packages/ops/src/index.ts:1',
      'unknown-package packages/ops/src/index.ts:2',
    ]);
  });

  it('rejects a published source file that needs a devDependency at run time, but not its tests', () => {
    const root = writeTree({
      ...BASE,
      'packages/ops/package.json': JSON.stringify({
        name: '@tsge/ops',
        exports: { '.': './src/index.ts' },
        devDependencies: { '@tsge/metadef': 'workspace:^' },
      }),
      'packages/ops/src/index.ts': "import { x } from '@tsge/metadef';\nimport type { T } from '@tsge/metadef';\nexport const y: T = x;\n",
      'packages/ops/src/index.test.ts': "import { x } from '@tsge/metadef';\nconsole.log(x);\n",
    });
    expect(errors(checkWorkspace(root).findings)).toEqual(['dev-dependency-in-source packages/ops/src/index.ts:1']);
  });

  it('lets tools import anything and apps import ge and metadef but not the compiler', () => {
    const root = writeTree({
      ...BASE,
      'packages/compiler/package.json': manifest('@tsge/compiler', { '@tsge/metadef': 'workspace:^' }),
      'packages/compiler/src/index.ts': 'export const c = 1;\n',
      'packages/ge/package.json': manifest('@tsge/ge', { '@tsge/compiler': 'workspace:^' }),
      'packages/ge/src/index.ts': "export { c } from '@tsge/compiler';\n",
      'tools/bench/package.json': manifest('@tsge/bench', { '@tsge/compiler': 'workspace:^', '@tsge/om': 'workspace:^' }),
      'tools/bench/src/main.ts': "import { c } from '@tsge/compiler';\nimport { y } from '@tsge/om';\nconsole.log(c, y);\n",
      'apps/server/package.json': manifest('@tsge/server', {
        '@tsge/ge': 'workspace:^',
        '@tsge/metadef': 'workspace:^',
        '@tsge/compiler': 'workspace:^',
      }),
      'apps/server/src/main.ts':
        "import { c } from '@tsge/ge';\nimport { x } from '@tsge/metadef';\nconst compiler = require('@tsge/compiler');\nconsole.log(c, x, compiler);\n",
    });
    expect(errors(checkWorkspace(root).findings)).toEqual(['forbidden-import apps/server/src/main.ts:3']);
  });

  it('reports a package the table does not cover and warns on value imports where types only are allowed', () => {
    const root = writeTree({
      ...BASE,
      'packages/mystery/package.json': manifest('@tsge/mystery'),
      'packages/mystery/src/index.ts': 'export {};\n',
      'packages/runtime/package.json': manifest('@tsge/runtime', { '@tsge/metadef': 'workspace:^' }),
      'packages/runtime/src/index.ts': "import { x } from '@tsge/metadef';\nexport const device = x;\n",
    });
    const { findings } = checkWorkspace(root);
    expect(errors(findings)).toEqual(['unlisted-package packages/mystery/package.json:1']);
    expect(findings.filter((finding) => finding.severity === 'warning').map((finding) => finding.kind)).toEqual(['value-import']);
  });

  it('turns an accepted exception into a warning', () => {
    const root = writeTree({
      ...BASE,
      'packages/compiler/package.json': manifest('@tsge/compiler', { '@tsge/metadef': 'workspace:^' }),
      'packages/compiler/src/index.ts': 'export const c = 1;\n',
      'packages/om/src/extra.ts': "export { c } from '@tsge/compiler';\n",
    });
    const rootManifest = path.join(root, 'packages/om/package.json');
    writeFileSync(rootManifest, manifest('@tsge/om', { '@tsge/metadef': 'workspace:^', '@tsge/compiler': 'workspace:^' }));
    const result = checkWorkspace(root, { exceptions: [{ from: '@tsge/om', to: '@tsge/compiler', reason: 'test' }] });
    expect(result.findings.map((finding) => `${finding.severity} ${finding.kind}`)).toEqual(['warning accepted-exception']);
  });

  it('skips node_modules, dist and nested packages', () => {
    const root = writeTree({
      ...BASE,
      'packages/om/dist/index.js': "import '../../metadef/src/index.js';\n",
      'packages/om/node_modules/x/index.js': "import '@tsge/compiler';\n",
      'packages/om/fixtures/package.json': manifest('nested'),
      'packages/om/fixtures/a.ts': "import '@tsge/compiler';\n",
    });
    expect(checkWorkspace(root).findings).toEqual([]);
  });
});

describe('extractImports', () => {
  it('finds static, type-only, re-export, dynamic, require and import-type references with lines', () => {
    const source = [
      "import a from 'a';",
      "import type { B } from 'b';",
      "import { type C } from 'c';",
      "export * from 'd';",
      "export type { E } from 'e';",
      "const f = await import('f');",
      "const g = require('g');",
      "let h: import('h').H;",
      "import 'i';",
      "const notAnImport = load('j');",
      "vi.mock('k', () => ({}));",
    ].join('\n');
    expect(extractImports('x.ts', source).map((r) => `${r.line} ${r.specifier} ${r.form}${r.typeOnly ? ' type' : ''}`)).toEqual([
      '1 a import',
      '2 b import type',
      '3 c import type',
      '4 d export',
      '5 e export type',
      '6 f dynamic-import',
      '7 g require',
      '8 h import-type type',
      '9 i import',
      '11 k test-mock',
    ]);
  });
});

describe('exportsSubpath', () => {
  it('follows subpath keys, patterns, null targets and condition objects', () => {
    const exportsField = { '.': { types: './d.ts' }, './feature': './f.js', './lib/*': './lib/*.js', './lib/private/*': null };
    expect(exportsSubpath(exportsField, '.')).toBe(true);
    expect(exportsSubpath(exportsField, './feature')).toBe(true);
    expect(exportsSubpath(exportsField, './lib/a')).toBe(true);
    expect(exportsSubpath(exportsField, './lib/private/a')).toBe(false);
    expect(exportsSubpath(exportsField, './other')).toBe(false);
    expect(exportsSubpath({ types: './d.ts', default: './i.js' }, '.')).toBe(true);
    expect(exportsSubpath({ types: './d.ts', default: './i.js' }, './x')).toBe(false);
    expect(exportsSubpath('./index.js', '.')).toBe(true);
    expect(exportsSubpath(undefined, './anything')).toBe(true);
  });
});

describe('roleOf', () => {
  it('derives roles from folders and names', () => {
    expect(roleOf({ name: '@tsge/parser-tensorflow', relativeDirectory: 'packages/parsers/tensorflow' })).toBe('parser');
    expect(roleOf({ name: '@tsge/parser-common', relativeDirectory: 'packages/parsers/common' })).toBe('parser-common');
    expect(roleOf({ name: '@tsge/adapter-onnxruntime', relativeDirectory: 'packages/adapters/onnxruntime' })).toBe('adapter');
    expect(roleOf({ name: '@tsge/adapter-tfjs', relativeDirectory: 'packages/adapters/tfjs' })).toBe('adapter');
    expect(roleOf({ name: '@tsge/adapter-tfjs', relativeDirectory: 'elsewhere/tfjs' })).toBe('adapter');
    expect(roleOf({ name: '@tsge/atc', relativeDirectory: 'apps/atc' })).toBe('atc');
    expect(roleOf({ name: '@tsge/run', relativeDirectory: 'apps/run' })).toBe('app');
    expect(roleOf({ name: '@tsge/conformance', relativeDirectory: 'tools/conformance' })).toBe('tool');
    expect(roleOf({ name: '@tsge/mystery', relativeDirectory: 'packages/mystery' })).toBeUndefined();
  });
});
