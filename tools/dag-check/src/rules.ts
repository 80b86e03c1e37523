import type { WorkspacePackage } from './workspace.js';

/**
 * The roles of ARCHITECTURE.md §2. A package's role comes from its folder (parsers, adapters, apps,
 * tools, examples) or its name (the core libraries).
 */
export const ROLES = [
  'metadef',
  'ops',
  'kernels-js',
  'kernels-wasm',
  'parser',
  'parser-common',
  'compiler',
  'om',
  'runtime',
  'executor',
  'ge',
  'dflow',
  'adapter',
  'atc',
  'app',
  'tool',
  'example',
  'integration-tests',
] as const;

export type Role = (typeof ROLES)[number];

export interface RoleRule {
  /** Roles this role may import; `'any'` for tooling and test packages. */
  readonly mayImport: readonly Role[] | 'any';
  /** Roles whose imports must be type-only (reported as warnings: the table says "types only"). */
  readonly typesOnly?: readonly Role[];
}

/** ARCHITECTURE.md §2, "may import". Keep in step with the table. */
export const RULES: Readonly<Record<Role, RoleRule>> = {
  metadef: { mayImport: [] },
  // Op definitions only (schema + inference); kernels live in the kernel libraries below.
  ops: { mayImport: ['metadef'] },
  // Kernel libraries implement ops' definitions; the SIMD kernels fall back to the reference kernels.
  'kernels-js': { mayImport: ['metadef', 'ops'] },
  'kernels-wasm': { mayImport: ['metadef', 'ops', 'kernels-js'] },
  // Parsers never import each other; a shared parser-common may exist.
  parser: { mayImport: ['metadef', 'parser-common'] },
  'parser-common': { mayImport: ['metadef'] },
  // The compiler never imports the runtime, the executor or a parser; kernels-js is its host for
  // constant folding (the target's kernel libraries reach it through CompileOptions.kernels).
  compiler: { mayImport: ['metadef', 'ops', 'kernels-js', 'om'] },
  om: { mayImport: ['metadef'] },
  runtime: { mayImport: ['metadef'], typesOnly: ['metadef'] },
  // The executor never imports the compiler or a parser.
  executor: { mayImport: ['metadef', 'om', 'runtime', 'ops', 'kernels-js', 'kernels-wasm'] },
  // "Everything above", but parsers are found through a registry, not hard-wired.
  ge: { mayImport: ['metadef', 'ops', 'kernels-js', 'kernels-wasm', 'parser-common', 'compiler', 'om', 'runtime', 'executor'] },
  // The table lists ge for the layers above it; metadef is added because ge's API speaks in metadef's
  // types (Graph, HostTensor, diagnostics), so a consumer of ge names them too.
  dflow: { mayImport: ['metadef', 'executor', 'ge'] },
  adapter: { mayImport: ['metadef', 'ge'] },
  atc: { mayImport: ['metadef', 'ge', 'parser', 'parser-common'] },
  app: { mayImport: ['metadef', 'ge'] },
  tool: { mayImport: 'any' },
  // Not in the table: examples demonstrate the public API of any package.
  example: { mayImport: 'any' },
  // Cross-package tests (parse → compile → run), private.
  'integration-tests': { mayImport: 'any' },
};

const ROLE_BY_NAME: Readonly<Record<string, Role>> = {
  '@tsge/metadef': 'metadef',
  '@tsge/ops': 'ops',
  '@tsge/kernels-js': 'kernels-js',
  '@tsge/kernels-wasm': 'kernels-wasm',
  '@tsge/parser-common': 'parser-common',
  '@tsge/compiler': 'compiler',
  '@tsge/om': 'om',
  '@tsge/runtime': 'runtime',
  '@tsge/executor': 'executor',
  '@tsge/ge': 'ge',
  '@tsge/dflow': 'dflow',
  // framework adapters (also found by folder): ge and metadef, the framework as a peer
  '@tsge/adapter-onnxruntime': 'adapter',
  '@tsge/adapter-tfjs': 'adapter',
  '@tsge/integration-tests': 'integration-tests',
};

/** The role of a package, or undefined when the table does not cover it (a violation of its own). */
export function roleOf(workspacePackage: Pick<WorkspacePackage, 'name' | 'relativeDirectory'>): Role | undefined {
  const { name, relativeDirectory } = workspacePackage;
  const byName = ROLE_BY_NAME[name];
  if (byName) return byName;
  const [top, second] = relativeDirectory.split('/');
  if (top === 'tools') return 'tool';
  if (top === 'examples') return 'example';
  if (top === 'apps') return relativeDirectory === 'apps/atc' || name === '@tsge/atc' ? 'atc' : 'app';
  if (top === 'packages' && second === 'parsers') return 'parser';
  if (top === 'packages' && second === 'adapters') return 'adapter';
  if (/^@tsge\/parser-/.test(name)) return 'parser';
  if (/^@tsge\/adapter-/.test(name)) return 'adapter';
  return undefined;
}

/**
 * Imports the table does not allow yet but that are accepted for now, each with its reason; they are
 * reported as warnings so the list shrinks instead of being forgotten.
 */
export interface AcceptedException {
  readonly from: string;
  readonly to: string;
  readonly reason: string;
}

export const ACCEPTED_EXCEPTIONS: readonly AcceptedException[] = [];

export function isAllowed(importer: Role, imported: Role): boolean {
  const rule = RULES[importer].mayImport;
  return rule === 'any' || rule.includes(imported);
}
