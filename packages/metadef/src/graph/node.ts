import type { OpDesc } from './op-desc.js';
import type { Graph } from './graph.js';

/** Input side of a data edge: at most one producer. */
export interface InDataAnchor {
  readonly kind: 'in-data';
  readonly node: Node;
  readonly index: number;
  peer: OutDataAnchor | undefined;
}
/** Output side of a data edge: any number of consumers. */
export interface OutDataAnchor {
  readonly kind: 'out-data';
  readonly node: Node;
  readonly index: number;
  readonly peers: InDataAnchor[];
}
/** Control anchors (index -1): "this node runs after those". */
export interface InControlAnchor {
  readonly kind: 'in-control';
  readonly node: Node;
  readonly peers: OutControlAnchor[];
}
export interface OutControlAnchor {
  readonly kind: 'out-control';
  readonly node: Node;
  readonly peers: InControlAnchor[];
}

/**
 * A node of a graph. Edges are links between anchors; mutate them only through Graph methods,
 * which keep both ends consistent.
 */
export class Node {
  readonly opDesc: OpDesc;
  /** The graph that holds this node (undefined after removal). */
  graph: Graph | undefined;
  /** Stable creation order within the owning graph; used for deterministic sorting. */
  readonly id: number;
  readonly inData: InDataAnchor[] = [];
  readonly outData: OutDataAnchor[] = [];
  readonly inControl: InControlAnchor;
  readonly outControl: OutControlAnchor;

  constructor(opDesc: OpDesc, graph: Graph, id: number, inputCount: number, outputCount: number) {
    this.opDesc = opDesc;
    this.graph = graph;
    this.id = id;
    for (let i = 0; i < inputCount; i++) this.inData.push({ kind: 'in-data', node: this, index: i, peer: undefined });
    for (let i = 0; i < outputCount; i++) this.outData.push({ kind: 'out-data', node: this, index: i, peers: [] });
    this.inControl = { kind: 'in-control', node: this, peers: [] };
    this.outControl = { kind: 'out-control', node: this, peers: [] };
  }

  get name(): string {
    return this.opDesc.name;
  }
  get type(): string {
    return this.opDesc.type;
  }

  /** The producer of input i, if linked. */
  producer(i: number): OutDataAnchor | undefined {
    return this.inData[i]?.peer;
  }
  /** Nodes feeding this one by data or control edges (deduplicated, in input order). */
  inNodes(): Node[] {
    const seen = new Set<Node>();
    for (const a of this.inData) if (a.peer) seen.add(a.peer.node);
    for (const p of this.inControl.peers) seen.add(p.node);
    return [...seen];
  }
  /** Nodes consuming this one by data or control edges (deduplicated). */
  outNodes(): Node[] {
    const seen = new Set<Node>();
    for (const a of this.outData) for (const p of a.peers) seen.add(p.node);
    for (const p of this.outControl.peers) seen.add(p.node);
    return [...seen];
  }
  toString(): string {
    return `${this.opDesc.name}(${this.opDesc.type})`;
  }
}
