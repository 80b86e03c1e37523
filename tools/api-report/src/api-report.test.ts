import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateReports, summarizeDifference, writeReports } from './api-report.js';
import { listPublicPackages, unscopedName } from './packages.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function writeTree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'api-report-'));
  roots.push(root);
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return root;
}

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    customConditions: ['@tsge/source'],
    types: [],
  },
  include: ['src'],
});

function manifest(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    name,
    type: 'module',
    exports: { '.': { '@tsge/source': './src/index.ts', types: './dist/index.d.ts' } },
    ...extra,
  });
}

const FIXTURE = {
  'packages/base/package.json': manifest('@tsge/base'),
  'packages/base/tsconfig.json': TSCONFIG,
  'packages/base/src/index.ts': "export type { Shape } from './shape.js';\nexport { rank } from './shape.js';\n",
  'packages/base/src/shape.ts': [
    '/** A shape. */',
    'export type Shape = readonly number[];',
    'export function rank(shape: Shape) {',
    '  return shape.length;',
    '}',
    '',
  ].join('\n'),
  'packages/parsers/thing/package.json': manifest('@tsge/parser-thing', { dependencies: { '@tsge/base': 'workspace:^' } }),
  'packages/parsers/thing/tsconfig.json': TSCONFIG,
  'packages/parsers/thing/src/index.ts': [
    "export { Box, makeBox as createBox, pick, LIMITS, secret, type BoxOptions } from './box.js';",
    "export * from './more.js';",
    "export * as shapes from '@tsge/base';",
    '',
  ].join('\n'),
  'packages/parsers/thing/src/box.ts': [
    "import type { Shape } from '@tsge/base';",
    'interface Hidden { readonly secret: string }',
    'export interface BoxOptions {',
    '  /** How big. */',
    '  readonly size?: number;',
    '}',
    'export class Box {',
    '  readonly shape: Shape;',
    '  #count = 0;',
    '  private hidden = 1;',
    '  constructor(shape: Shape, options: BoxOptions = {}) {',
    '    this.shape = shape;',
    '    void options;',
    '  }',
    '  get count() { return this.#count; }',
    '  grow(by = 1): number { return (this.#count += by + this.hidden); }',
    '}',
    'export function makeBox(shape: Shape): Box { return new Box(shape); }',
    'export function pick(value: string): string;',
    'export function pick(value: number): number;',
    'export function pick(value: string | number) { return value; }',
    'export const LIMITS = { max: 4, name: "box" } as const;',
    'export function secret(): Hidden { return { secret: "x" }; }',
    '',
  ].join('\n'),
  'packages/parsers/thing/src/more.ts': "export let counter = 0;\nexport const inferred = (a: number, b = 'x') => String(a) + b;\n",
  'packages/private/package.json': JSON.stringify({ name: '@tsge/private', private: true }),
  'packages/private/src/index.ts': 'export const x = 1;\n',
};

function fixture(): string {
  const root = writeTree(FIXTURE);
  mkdirSync(path.join(root, 'packages/parsers/thing/node_modules/@tsge'), { recursive: true });
  symlinkSync(path.join(root, 'packages/base'), path.join(root, 'packages/parsers/thing/node_modules/@tsge/base'), 'dir');
  return root;
}

describe('api-report', () => {
  it('lists public packages under packages/** with their report paths', () => {
    const root = fixture();
    const found = listPublicPackages(root).map((p) => `${p.name} ${path.relative(root, p.reportFile)}`);
    expect(found).toEqual([
      '@tsge/base packages/base/etc/base.api.md',
      '@tsge/parser-thing packages/parsers/thing/etc/parser-thing.api.md',
    ]);
    expect(unscopedName('@tsge/parser-onnx')).toBe('parser-onnx');
  });

  it('renders every export with kind and signature, sorted, with workspace deps resolved from sources', () => {
    const root = fixture();
    const [, thing] = generateReports(root);
    const text = thing.expected;
    expect(text).toContain('## API Report File for "@tsge/parser-thing"');
    // classes: public members only, inferred accessor types, defaults become optional parameters
    expect(text).toContain(
      '// class\nexport class Box {\n    readonly shape: Shape;\n    constructor(shape: Shape, options?: BoxOptions);\n    get count(): number;\n    grow(by?: number): number;\n}',
    );
    expect(text).not.toMatch(/hidden|#count|#private/);
    // aliased export under its public name; overloads without the implementation
    expect(text).toContain('// function\nexport function createBox(shape: Shape): Box;');
    expect(text).toContain('export function pick(value: string): string;\n\n// function\nexport function pick(value: number): number;');
    expect(text).not.toContain('value: string | number');
    // consts and lets with their (inferred) types, interfaces with members, comments dropped
    expect(text).toContain('// const\nexport const LIMITS: {\n    readonly max: 4;\n    readonly name: "box";\n};');
    expect(text).toContain('// variable\nexport let counter: number;');
    expect(text).toContain('export const inferred: (a: number, b?: string) => string;');
    expect(text).toContain('// interface\nexport interface BoxOptions {\n    readonly size?: number;\n}');
    expect(text).not.toContain('How big');
    // a non-exported type reached through an export is named, without a file path
    expect(text).toContain('export function secret(): Hidden;');
    expect(text).not.toContain('import(');
    const names = [...text.matchAll(/^export (?:class|function|const|let|interface|type) (\w+)/gm)].map((match) => match[1]);
    expect(names).toEqual([...names].sort());
    expect(text).toContain(
      '// namespace\nexport namespace shapes {\n    // type\n    export type Shape = readonly number[];\n\n    // function\n    export function rank(shape: Shape): number;\n}',
    );
    const base = generateReports(root)[0].expected;
    expect(base).toContain('export function rank(shape: Shape): number;');
    expect(base).toContain('export type Shape = readonly number[];');
  });

  it('is stable across runs and detects missing and changed reports', () => {
    const root = fixture();
    const first = generateReports(root);
    expect(first.every((result) => result.actual === undefined)).toBe(true);
    expect(writeReports(root, first)).toEqual(['packages/base/etc/base.api.md', 'packages/parsers/thing/etc/parser-thing.api.md']);
    const second = generateReports(root);
    expect(second.map((result) => result.expected)).toEqual(first.map((result) => result.expected));
    expect(second.every((result) => result.actual === result.expected)).toBe(true);
    expect(writeReports(root, second)).toEqual([]);

    // An API change without regenerating the report is caught.
    const boxFile = path.join(root, 'packages/parsers/thing/src/box.ts');
    writeFileSync(
      boxFile,
      readFileSync(boxFile, 'utf8').replace('makeBox(shape: Shape): Box', 'makeBox(shape: Shape, label: string): Box'),
    );
    const stale = generateReports(root).filter((result) => result.actual !== result.expected);
    expect(stale.map((result) => result.reportFile)).toEqual(['packages/parsers/thing/etc/parser-thing.api.md']);
    const summary = summarizeDifference(stale[0].actual ?? '', stale[0].expected);
    expect(summary).toContain('1 line(s) removed, 1 line(s) added');
    expect(summary).toContain('+ export function createBox(shape: Shape, label: string): Box;');
  });
});
