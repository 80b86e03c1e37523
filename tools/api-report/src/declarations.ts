import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { PublicPackage } from './packages.js';

/**
 * Emits the declarations of every public package in one TypeScript program without type checking
 * (`pnpm typecheck` checks; api-extractor only needs .d.ts input). Workspace imports resolve to
 * sources through the `@tsge/source` condition and keep their package specifiers in the output,
 * so api-extractor sees `@tsge/metadef` as that package. Returns the `index.d.ts` of each package.
 */
export function emitDeclarations(root: string, packages: readonly PublicPackage[], outDir: string): Map<string, string> {
  const baseFile = path.join(root, 'tsconfig.base.json');
  const base = ts.readConfigFile(baseFile, ts.sys.readFile);
  if (base.error) throw new Error(ts.flattenDiagnosticMessageText(base.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(base.config, ts.sys, root, undefined, baseFile);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    rootDir: root,
    outDir,
    declaration: true,
    emitDeclarationOnly: true,
    noCheck: true,
    declarationMap: false,
    sourceMap: false,
    inlineSources: false,
    noEmit: false,
    incremental: false,
    composite: false,
  };
  const program = ts.createProgram({ rootNames: packages.map((p) => p.entry), options });
  const result = program.emit();
  const errors = [...program.getOptionsDiagnostics(), ...program.getSyntacticDiagnostics(), ...result.diagnostics].filter(
    (d) => d.category === ts.DiagnosticCategory.Error,
  );
  if (errors.length > 0) {
    throw new Error(
      ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }),
    );
  }
  // Third-party imports in the declarations resolve as from the package itself: each emitted
  // package folder gets a link to the package's node_modules (and the root to the root's).
  for (const folder of [root, ...packages.map((p) => p.directory)]) {
    const modules = path.join(folder, 'node_modules');
    const emitted = path.join(outDir, path.relative(root, folder));
    if (!existsSync(modules)) continue;
    mkdirSync(emitted, { recursive: true });
    symlinkSync(modules, path.join(emitted, 'node_modules'), 'dir');
  }
  const entries = new Map<string, string>();
  for (const p of packages) {
    entries.set(p.name, path.join(outDir, path.relative(root, p.entry)).replace(/\.ts$/, '.d.ts'));
  }
  return entries;
}
