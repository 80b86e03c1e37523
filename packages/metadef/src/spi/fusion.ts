import type { Graph } from '../graph/graph.js';
import type { Node, OutDataAnchor } from '../graph/node.js';
import type { OptLevel, PassContext } from './pass.js';

/**
 * A pattern is a small graph built with the graph builder: its `Data` nodes stand for any
 * producer, its NetOutput's inputs are the pattern outputs, other nodes match by op type.
 * A pattern node whose type is listed in `anyOf` matches any of those types.
 */
export interface FusionPattern {
  readonly name: string;
  readonly graph: Graph;
  readonly anyOf?: Readonly<Record<string, readonly string[]>>;
}

/** One match: pattern node name → graph node, and the anchors at the pattern's boundary. */
export interface FusionMatch {
  readonly pattern: string;
  readonly nodes: ReadonlyMap<string, Node>;
  /** Producers feeding the pattern's Data nodes, by Data index. */
  readonly inputs: readonly OutDataAnchor[];
  /** Outputs of matched nodes that are the pattern's outputs. */
  readonly outputs: readonly OutDataAnchor[];
}

export interface FusionPassV1 {
  readonly specVersion: 'v1';
  readonly name: string;
  readonly level: OptLevel;
  patterns(): readonly FusionPattern[];
  /** Optional extra check (attributes, shapes, single consumers) before replacing. */
  requirements?(match: FusionMatch, graph: Graph, ctx: PassContext): boolean;
  /** Rewrites the matched nodes; returns the new node(s). */
  replace(match: FusionMatch, graph: Graph, ctx: PassContext): readonly Node[];
}
