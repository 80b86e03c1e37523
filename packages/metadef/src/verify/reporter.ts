import type { ErrorCode } from '../errors/catalog.js';
import type { Diagnostic, Severity } from '../errors/diagnostic.js';
import { diagnostic } from '../errors/tsge-error.js';
import type { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';

/** Collects verifier diagnostics, each located at its graph and node. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  node(code: ErrorCode, graph: Graph, node: Node, args: Readonly<Record<string, unknown>>, severity: Severity = 'error'): void {
    const location = { graph: graph.name, node: node.name, opType: node.type, domain: node.opDesc.domain };
    this.diagnostics.push(diagnostic(code, { node: node.name, ...args }, location, severity));
  }

  graph(code: ErrorCode, graph: Graph, args: Readonly<Record<string, unknown>>, severity: Severity = 'error'): void {
    this.diagnostics.push(diagnostic(code, args, { graph: graph.name }, severity));
  }

  add(d: Diagnostic): void {
    this.diagnostics.push(d);
  }
}
