import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runReports } from './api-report.js';
import { listPublicPackages } from './packages.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A workspace of two packages: @x/base declares `Value`, @x/user's API names it. */
function workspace(userIndex: string): string {
  const root = mkdtempSync(path.join(tmpdir(), 'api-report-'));
  roots.push(root);
  const files: Record<string, string> = {
    'tsconfig.base.json': JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        customConditions: ['@tsge/source'],
        types: [],
      },
    }),
    'packages/base/package.json': manifest('@x/base'),
    'packages/base/src/index.ts': 'export interface Value {\n  readonly n: number;\n}\n',
    'packages/user/package.json': manifest('@x/user'),
    'packages/user/src/index.ts': userIndex,
    'packages/private/package.json': JSON.stringify({ name: '@x/private', private: true }),
    'packages/private/src/index.ts': 'export const hidden = 1;\n',
  };
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), content);
  }
  // the user package finds @x/base the way pnpm links it
  mkdirSync(path.join(root, 'packages/user/node_modules/@x'), { recursive: true });
  writeFileSync(path.join(root, 'packages/user/node_modules/@x/.keep'), '');
  return root;
}

function manifest(name: string): string {
  return JSON.stringify({
    name,
    version: '1.0.0',
    type: 'module',
    exports: { '.': { '@tsge/source': './src/index.ts', types: './dist/index.d.ts' } },
  });
}

const NAMES_VALUE = "import type { Value } from '@x/base';\nexport function read(value: Value): number {\n  return value.n;\n}\n";

describe('api-report (api-extractor)', () => {
  it('lists the public packages only', () => {
    const root = workspace(NAMES_VALUE);
    expect(listPublicPackages(root).map((p) => p.name)).toEqual(['@x/base', '@x/user']);
  });

  it('fails on a type from another workspace package that the API names but does not export', () => {
    const root = workspace(NAMES_VALUE);
    const results = runReports(root, { update: true });
    const user = results.find((r) => r.packageName === '@x/user');
    expect(user?.errors.join('\n')).toMatch(/ae-forgotten-export.*"Value"/);
    expect(results.find((r) => r.packageName === '@x/base')?.errors).toEqual([]);
  });

  it('writes reports, then checks them and notices an API change', () => {
    const root = workspace(`${NAMES_VALUE}export type { Value } from '@x/base';\n`);
    const written = runReports(root, { update: true });
    expect(written.flatMap((r) => r.errors)).toEqual([]);
    expect(written.map((r) => r.changed)).toEqual([true, true]);
    const report = readFileSync(path.join(root, 'packages/user/etc/user.api.md'), 'utf8');
    expect(report).toContain('export function read(value: Value): number;');
    expect(report).toContain('readonly n: number;'); // the re-exported type is part of the API
    expect(runReports(root, { update: false }).map((r) => r.changed)).toEqual([false, false]);

    writeFileSync(path.join(root, 'packages/base/src/index.ts'), 'export interface Value {\n  readonly n: bigint;\n}\n');
    const checked = runReports(root, { update: false });
    expect(checked.map((r) => r.changed)).toEqual([true, true]); // @x/user's API changed with its dependency
    expect(readFileSync(path.join(root, 'packages/user/etc/user.api.md'), 'utf8')).toBe(report); // check mode writes nothing
  });
});
