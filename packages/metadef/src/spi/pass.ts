import type { Diagnostic } from '../errors/diagnostic.js';
import type { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import type { OpRegistry } from '../ops/op-registry.js';

/** Optimization levels: O0 is what correctness needs, O3 the most aggressive. */
export type OptLevel = 0 | 1 | 2 | 3;

/** Where a custom pass runs, as in GE. */
export type PassStage = 'before-infershape' | 'after-infershape' | 'after-builtin-fusion' | 'after-graph-optimize' | 'after-stream-assign';

export interface PassContext {
  readonly ops: OpRegistry;
  readonly target: string;
  readonly level: OptLevel;
  report(d: Diagnostic): void;
  /** Asks the pass manager to revisit a node (shape inference, constant folding converge). */
  revisit(node: Node): void;
  /** Counters shown in atc's summary (fusions applied, nodes folded, ...). */
  count(name: string, by?: number): void;
}

export interface PassResult {
  readonly changed: boolean;
}

/** A graph pass. Built-in passes and user passes share this interface. */
export interface GraphPassV1 {
  readonly specVersion: 'v1';
  readonly name: string;
  readonly level: OptLevel;
  readonly stage?: PassStage;
  run(graph: Graph, ctx: PassContext): PassResult;
}
