import ts from 'typescript';

export type ImportForm = 'import' | 'export' | 'dynamic-import' | 'require' | 'import-type' | 'test-mock';

// vitest's module helpers name modules too: `vi.mock('@tsge/x/src/y.js')` reaches into internals like an import.
const TEST_MODULE_HELPERS = new Set(['mock', 'doMock', 'unmock', 'doUnmock', 'importActual', 'importMock']);

export interface ImportReference {
  readonly specifier: string;
  readonly form: ImportForm;
  /** True when only types are imported (`import type`, `export type`, `import('x').T` in a type). */
  readonly typeOnly: boolean;
  /** 1-based line of the specifier. */
  readonly line: number;
}

function scriptKindOf(fileName: string): ts.ScriptKind {
  if (/\.(m|c)?tsx?$/.test(fileName)) return fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return fileName.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // side-effect import
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return (
    bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly)
  );
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** Every module specifier a source file references: static imports, re-exports, dynamic `import()`, `require()`, import types. */
export function extractImports(fileName: string, sourceText: string): ImportReference[] {
  const source = ts.createSourceFile(fileName, sourceText, ts.ScriptTarget.Latest, true, scriptKindOf(fileName));
  const references: ImportReference[] = [];
  const add = (literal: ts.Node, specifier: string, form: ImportForm, typeOnly: boolean): void => {
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    references.push({ specifier, form, typeOnly, line });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier, node.moduleSpecifier.text, 'import', isTypeOnlyImport(node));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier, node.moduleSpecifier.text, 'export', isTypeOnlyExport(node));
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node.moduleReference.expression, node.moduleReference.expression.text, 'import', node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0])) {
      const argument = node.arguments[0];
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) add(argument, argument.text, 'dynamic-import', false);
      else if (ts.isIdentifier(node.expression) && node.expression.text === 'require') add(argument, argument.text, 'require', false);
      else if (
        ts.isPropertyAccessExpression(node.expression) &&
        ts.isIdentifier(node.expression.expression) &&
        node.expression.expression.text === 'vi' &&
        TEST_MODULE_HELPERS.has(node.expression.name.text)
      ) {
        add(argument, argument.text, 'test-mock', false);
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal, node.argument.literal.text, 'import-type', true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return references;
}
