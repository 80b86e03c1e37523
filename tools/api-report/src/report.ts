import path from 'node:path';
import ts from 'typescript';

/** One exported name rendered as declaration text. */
export interface ApiEntry {
  readonly name: string;
  readonly kind: ApiKind;
  readonly text: string;
}

export type ApiKind = 'namespace' | 'class' | 'enum' | 'interface' | 'type' | 'function' | 'const' | 'variable';

const KIND_ORDER: readonly ApiKind[] = ['namespace', 'class', 'enum', 'interface', 'type', 'function', 'const', 'variable'];
const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/**
 * Declarations come from TypeScript's own declaration emitter (in memory), so inferred types,
 * parameter defaults and overloads read as in a `.d.ts`. Paths of `import("./x.js").T` are dropped
 * so the report does not change when a type moves between files.
 */
function clean(text: string): string {
  return text.replace(/import\("[^"]*"\)\./g, '').replace(/^(export\s+)?(default\s+)?(declare\s+)?/, '');
}

function isPrivateMember(member: ts.ClassElement): boolean {
  if (member.name && ts.isPrivateIdentifier(member.name)) return true;
  const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
  return modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword || modifier.kind === ts.SyntaxKind.ProtectedKeyword);
}

function declaredName(statement: ts.Statement): string | undefined {
  if (
    ts.isFunctionDeclaration(statement) ||
    ts.isClassDeclaration(statement) ||
    ts.isInterfaceDeclaration(statement) ||
    ts.isTypeAliasDeclaration(statement) ||
    ts.isEnumDeclaration(statement) ||
    ts.isModuleDeclaration(statement)
  ) {
    return statement.name && ts.isIdentifier(statement.name) ? statement.name.text : undefined;
  }
  return undefined;
}

function kindOf(node: ts.Node): ApiKind | undefined {
  if (ts.isFunctionDeclaration(node)) return 'function';
  if (ts.isClassDeclaration(node)) return 'class';
  if (ts.isInterfaceDeclaration(node)) return 'interface';
  if (ts.isTypeAliasDeclaration(node)) return 'type';
  if (ts.isEnumDeclaration(node)) return 'enum';
  if (ts.isModuleDeclaration(node)) return 'namespace';
  if (ts.isVariableDeclaration(node)) return ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const ? 'const' : 'variable';
  return undefined;
}

/**
 * Emits and caches the `.d.ts` text of source files. Files reached through node_modules (another
 * workspace package, re-exported) are not emitted by the package's program, so they get a program
 * of their own.
 */
class DeclarationEmitter {
  private readonly cache = new Map<string, ts.SourceFile | undefined>();
  constructor(
    private readonly program: ts.Program,
    private readonly host: ts.CompilerHost,
  ) {}

  declarationsOf(sourceFile: ts.SourceFile): ts.SourceFile | undefined {
    if (sourceFile.isDeclarationFile) return sourceFile;
    if (!this.cache.has(sourceFile.fileName)) {
      const program = this.program.isSourceFileFromExternalLibrary(sourceFile)
        ? ts.createProgram({ rootNames: [sourceFile.fileName], options: this.program.getCompilerOptions(), host: this.host })
        : this.program;
      const emittedFrom = program.getSourceFile(sourceFile.fileName);
      let text: string | undefined;
      if (emittedFrom) {
        program.emit(
          emittedFrom,
          (fileName, data) => {
            if (/\.d\.[cm]?ts$/.test(fileName)) text = data;
          },
          undefined,
          true,
        );
      }
      this.cache.set(
        sourceFile.fileName,
        text === undefined ? undefined : ts.createSourceFile(`${sourceFile.fileName}.d.ts`, text, ts.ScriptTarget.Latest, true),
      );
    }
    return this.cache.get(sourceFile.fileName);
  }
}

function render(exportName: string, localName: string, kind: ApiKind, node: ts.Node, file: ts.SourceFile): string {
  let printed: string;
  if (ts.isVariableDeclaration(node)) {
    printed = `${kind === 'const' ? 'const' : 'let'} ${printer.printNode(ts.EmitHint.Unspecified, node, file)};`;
  } else if (ts.isClassDeclaration(node)) {
    const members = node.members.filter((member) => !isPrivateMember(member));
    const updated = ts.factory.updateClassDeclaration(node, node.modifiers, node.name, node.typeParameters, node.heritageClauses, members);
    printed = printer.printNode(ts.EmitHint.Unspecified, updated, file);
  } else {
    printed = printer.printNode(ts.EmitHint.Unspecified, node, file);
  }
  const text = clean(printed);
  return exportName === localName ? text : text.replace(new RegExp(`\\b${localName}\\b`), exportName);
}

/** Finds, in the emitted declarations, the statements that declare `localName` with the given kind. */
function findEmitted(declarations: ts.SourceFile, localName: string, kind: ApiKind): ts.Node[] {
  const found: ts.Node[] = [];
  for (const statement of declarations.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.name.text === localName && kindOf(declaration) === kind)
          found.push(declaration);
      }
    } else if (declaredName(statement) === localName && kindOf(statement) === kind) found.push(statement);
  }
  return found;
}

/** Every export of a module with its declaration text, sorted by name, then kind; overloads keep their order. */
export function collectApi(
  program: ts.Program,
  entry: string,
  host: ts.CompilerHost = ts.createCompilerHost(program.getCompilerOptions()),
): ApiEntry[] {
  const checker = program.getTypeChecker();
  const emitter = new DeclarationEmitter(program, host);
  const entryFile = program.getSourceFile(entry);
  if (!entryFile) throw new Error(`cannot read ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(entryFile);
  return moduleSymbol ? collectModule(moduleSymbol, checker, emitter, new Set()) : [];
}

function collectModule(
  moduleSymbol: ts.Symbol,
  checker: ts.TypeChecker,
  emitter: DeclarationEmitter,
  visiting: Set<ts.Symbol>,
): ApiEntry[] {
  visiting.add(moduleSymbol);
  const entries: ApiEntry[] = [];
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const seen = new Set<string>();
    const add = (kind: ApiKind, text: string): void => {
      if (seen.has(text)) return; // overloads and merged interfaces are printed once per text
      seen.add(text);
      entries.push({ name: exported.name, kind, text });
    };
    for (const declaration of target.declarations ?? []) {
      if (ts.isSourceFile(declaration)) {
        // `export * as name from './x.js'`: the module's exports, nested.
        const nested = visiting.has(target) ? [] : collectModule(target, checker, emitter, visiting);
        const body = nested.map((entry) => `    // ${entry.kind}\n    export ${entry.text.replace(/\n/g, '\n    ')}`).join('\n\n');
        add('namespace', `namespace ${exported.name} {\n${body}\n}`);
        continue;
      }
      const kind = kindOf(declaration);
      const localName = ts.getNameOfDeclaration(declaration);
      const emitted = emitter.declarationsOf(declaration.getSourceFile());
      if (kind && localName && ts.isIdentifier(localName) && emitted) {
        const nodes = findEmitted(emitted, localName.text, kind);
        for (const node of nodes) add(kind, render(exported.name, localName.text, kind, node, emitted));
        if (nodes.length > 0) continue;
      }
      // Anything the emitter does not give back (an `export default` expression, ...) is described by its type.
      const type = checker.getTypeOfSymbolAtLocation(target, declaration);
      add(kind ?? 'const', `const ${exported.name}: ${clean(checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation))};`);
    }
  }
  visiting.delete(moduleSymbol);
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort((a, b) => compare(a.name, b.name) || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
}

/** The markdown report for one package. */
export function renderReport(packageName: string, entries: readonly ApiEntry[]): string {
  const body = entries.map((entry) => `// ${entry.kind}\nexport ${entry.text}`).join('\n\n');
  return [
    `## API Report File for "${packageName}"`,
    '',
    '> Do not edit this file. It is written by `pnpm api:update` (tools/api-report) from `src/index.ts`;',
    '> `pnpm api:check` fails in CI when it differs from the code.',
    '',
    '```ts',
    body,
    '```',
    '',
  ].join('\n');
}

/** Compiler options for reading a package's sources: its tsconfig.json, resolving workspace deps to their sources. */
export function compilerOptionsFor(directory: string): ts.CompilerOptions {
  const configFile = path.join(directory, 'tsconfig.json');
  let options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
  };
  if (ts.sys.fileExists(configFile)) {
    const parsed = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    if (parsed) options = parsed.options;
  }
  const conditions = new Set([...(options.customConditions ?? []), '@tsge/source']);
  return {
    ...options,
    customConditions: [...conditions],
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    sourceMap: false,
    composite: false,
    incremental: false,
    rootDir: undefined,
    outDir: undefined,
    declarationDir: undefined,
    tsBuildInfoFile: undefined,
    skipLibCheck: true,
  };
}

/** A compiler host that parses each file once across the programs of all packages. */
export function createCachingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const cache = new Map<string, ts.SourceFile | undefined>();
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const format = typeof languageVersion === 'object' ? languageVersion.impliedNodeFormat : undefined;
    const key = `${format ?? ''}:${fileName}`;
    if (!cache.has(key)) cache.set(key, getSourceFile(fileName, languageVersion, onError, shouldCreate));
    return cache.get(key);
  };
  return host;
}
