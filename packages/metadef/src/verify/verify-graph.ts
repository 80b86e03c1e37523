import type { Diagnostic } from '../errors/diagnostic.js';
import type { Graph } from '../graph/graph.js';
import type { OpRegistry } from '../ops/op-registry.js';
import { checkConsts, checkDataIndices, checkNetOutput, checkTopology } from './check-graph.js';
import { checkInference, checkSchemas } from './check-schema.js';
import { checkAnchors, checkDescs, checkNames } from './check-structure.js';
import { checkSubgraphs } from './check-subgraphs.js';
import { Reporter } from './reporter.js';

export interface VerifyOptions {
  /** With a registry: op existence, arity, required inputs and attribute kinds are checked. */
  readonly ops?: OpRegistry;
  /** Re-run shape inference (needs `ops`) and compare with the recorded output descs. */
  readonly checkInference?: boolean;
}

/**
 * Checks every invariant of a graph tree and returns one diagnostic per violation (codes
 * TSGE-E1001..E1022); an empty list means the graph is well formed. Given a root graph, its
 * subgraphs are checked too. Never mutates the graph.
 */
export function verifyGraph(graph: Graph, options: VerifyOptions = {}): Diagnostic[] {
  const report = new Reporter();
  const graphs = graph.isRoot ? [graph, ...graph.subgraphs.values()] : [graph];
  for (const g of graphs) {
    checkNames(g, report);
    checkAnchors(g, report);
    checkDescs(g, report);
    checkTopology(g, report);
    checkNetOutput(g, report);
    checkDataIndices(g, report);
    checkConsts(g, report);
    if (options.ops) checkSchemas(g, options.ops, report);
    if (options.ops && options.checkInference) checkInference(g, options.ops, report);
  }
  checkSubgraphs(graph, report);
  return report.diagnostics;
}
