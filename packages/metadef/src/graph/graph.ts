import type { AttrMap } from '../types/attr.js';
import { ATTR_INDEX, DATA, NET_OUTPUT, type OpDesc, cloneOpDesc } from './op-desc.js';
import { type InDataAnchor, Node, type OutDataAnchor } from './node.js';

/**
 * A graph: an ordered set of nodes linked by anchors. The root graph owns all subgraphs (of any
 * depth) in `subgraphs`; a subgraph knows its parent node and the graph that holds that node.
 * Subgraph `Data` nodes map to parent inputs through `_parent_node_index`.
 */
export class Graph {
  name: string;
  readonly attrs: AttrMap = new Map();
  private readonly nodeSet = new Set<Node>();
  private nextId = 0;
  /** Root only: every subgraph by its unique name. */
  readonly subgraphs = new Map<string, Graph>();
  /** Subgraphs only: the node that calls this graph. */
  parentNode: Node | undefined;
  /** Subgraphs only: the root graph that owns this one. */
  owner: Graph | undefined;

  constructor(name: string) {
    this.name = name;
  }

  get nodes(): readonly Node[] {
    return [...this.nodeSet];
  }
  get nodeCount(): number {
    return this.nodeSet.size;
  }
  get isRoot(): boolean {
    return this.owner === undefined;
  }
  /** The root graph (this graph when it is the root). */
  get root(): Graph {
    return this.owner ?? this;
  }
  /** The graph holding the parent node (subgraphs only). */
  get parentGraph(): Graph | undefined {
    return this.parentNode?.graph;
  }
  has(node: Node): boolean {
    return this.nodeSet.has(node);
  }

  /** Adds a node; anchor counts default to the desc counts. */
  addNode(opDesc: OpDesc, counts?: { inputs?: number; outputs?: number }): Node {
    const inputs = counts?.inputs ?? opDesc.inputDescs.length;
    const outputs = counts?.outputs ?? opDesc.outputDescs.length;
    const node = new Node(opDesc, this, this.nextId++, inputs, outputs);
    this.nodeSet.add(node);
    return node;
  }

  /** Removes a node and every edge that touches it. */
  removeNode(node: Node): void {
    this.isolate(node);
    this.nodeSet.delete(node);
    node.graph = undefined;
  }

  /** Unlinks all data and control edges of a node, leaving it in the graph. */
  isolate(node: Node): void {
    for (const a of node.inData) if (a.peer) this.unlink(a);
    for (const out of node.outData) for (const p of [...out.peers]) this.unlink(p);
    for (const p of [...node.inControl.peers]) this.removeControlEdge(p.node, node);
    for (const p of [...node.outControl.peers]) this.removeControlEdge(node, p.node);
  }

  /**
   * Removes a node and reconnects its data flow: consumers of output `outIndex` are fed by the
   * producer of input `inIndex` (GE's IsolateNode with an io map). Control edges are bridged.
   */
  bypass(node: Node, inIndex = 0, outIndex = 0): void {
    const source = node.inData[inIndex]?.peer;
    if (!source) throw new Error(`cannot bypass ${node}: input ${inIndex} is not linked`);
    const consumers = [...(node.outData[outIndex]?.peers ?? [])];
    const controlIn = node.inControl.peers.map((p) => p.node);
    const controlOut = node.outControl.peers.map((p) => p.node);
    this.removeNode(node);
    for (const c of consumers) c.node.graph?.link(source, c);
    for (const from of controlIn) for (const to of controlOut) this.addControlEdge(from, to);
  }

  /** Links producer output → consumer input (replacing the consumer's old producer). */
  link(from: OutDataAnchor, to: InDataAnchor): void {
    if (to.peer === from) return;
    if (to.peer) this.unlink(to);
    to.peer = from;
    from.peers.push(to);
  }
  /** Convenience: link by nodes and indices. */
  addEdge(from: Node, fromIndex: number, to: Node, toIndex: number): void {
    const out = from.outData[fromIndex];
    const inp = to.inData[toIndex];
    if (!out) throw new RangeError(`${from} has no output ${fromIndex}`);
    if (!inp) throw new RangeError(`${to} has no input ${toIndex}`);
    this.link(out, inp);
  }
  /** Unlinks an input anchor from its producer. */
  unlink(to: InDataAnchor): void {
    const from = to.peer;
    if (!from) return;
    const i = from.peers.indexOf(to);
    if (i >= 0) from.peers.splice(i, 1);
    to.peer = undefined;
  }

  addControlEdge(from: Node, to: Node): void {
    if (from.outControl.peers.includes(to.inControl)) return;
    from.outControl.peers.push(to.inControl);
    to.inControl.peers.push(from.outControl);
  }
  removeControlEdge(from: Node, to: Node): void {
    const i = from.outControl.peers.indexOf(to.inControl);
    if (i >= 0) from.outControl.peers.splice(i, 1);
    const j = to.inControl.peers.indexOf(from.outControl);
    if (j >= 0) to.inControl.peers.splice(j, 1);
  }

  /** Moves every consumer of `from` to read `to` instead. */
  replaceAllUses(from: OutDataAnchor, to: OutDataAnchor): void {
    for (const c of [...from.peers]) this.link(to, c);
  }

  /**
   * Replaces `oldNode` by `newNode`: inputs map by `inputMap[newIndex] = oldIndex`, outputs by
   * `outputMap[newIndex] = oldIndex` (identity by default); control edges move over; old is removed.
   */
  replaceNode(oldNode: Node, newNode: Node, maps?: { inputMap?: readonly number[]; outputMap?: readonly number[] }): void {
    const inputMap = maps?.inputMap ?? newNode.inData.map((_, i) => i);
    const outputMap = maps?.outputMap ?? newNode.outData.map((_, i) => i);
    inputMap.forEach((oldIndex, newIndex) => {
      const p = oldNode.inData[oldIndex]?.peer;
      const target = newNode.inData[newIndex];
      if (p && target) this.link(p, target);
    });
    outputMap.forEach((oldIndex, newIndex) => {
      const old = oldNode.outData[oldIndex];
      const target = newNode.outData[newIndex];
      if (old && target) this.replaceAllUses(old, target);
    });
    for (const p of [...oldNode.inControl.peers]) this.addControlEdge(p.node, newNode);
    for (const p of [...oldNode.outControl.peers]) this.addControlEdge(newNode, p.node);
    this.removeNode(oldNode);
  }

  /**
   * Inserts `node` on the edge into `to`: producer → node.input[inIndex], node.output[outIndex] → to.
   */
  insertBetween(to: InDataAnchor, node: Node, inIndex = 0, outIndex = 0): void {
    const from = to.peer;
    if (!from) throw new Error(`cannot insert before ${to.node} input ${to.index}: not linked`);
    const nodeIn = node.inData[inIndex];
    const nodeOut = node.outData[outIndex];
    if (!nodeIn || !nodeOut) throw new RangeError(`${node} lacks input ${inIndex} or output ${outIndex}`);
    this.link(from, nodeIn);
    this.link(nodeOut, to);
  }

  findNode(name: string): Node | undefined {
    for (const n of this.nodeSet) if (n.opDesc.name === name) return n;
    return undefined;
  }
  nodesOfType(type: string): Node[] {
    return this.nodes.filter((n) => n.opDesc.type === type);
  }
  /** Graph inputs: `Data` nodes ordered by their `index` attribute. */
  inputNodes(): Node[] {
    const idx = (n: Node): number => {
      const a = n.opDesc.attrs.get(ATTR_INDEX);
      return a?.kind === 'int' ? a.value : Number.MAX_SAFE_INTEGER;
    };
    return this.nodesOfType(DATA).sort((a, b) => idx(a) - idx(b) || a.id - b.id);
  }
  /** The single `NetOutput` node, if present. */
  outputNode(): Node | undefined {
    for (const n of this.nodeSet) if (n.opDesc.type === NET_OUTPUT) return n;
    return undefined;
  }

  /** Registers a subgraph under the root, called by `parentNode`. Names are unique in the root. */
  addSubgraph(subgraph: Graph, parentNode: Node): void {
    const root = this.root;
    if (root.subgraphs.has(subgraph.name)) throw new Error(`subgraph name ${subgraph.name} is already used`);
    subgraph.owner = root;
    subgraph.parentNode = parentNode;
    root.subgraphs.set(subgraph.name, subgraph);
    // nested subgraphs move to the new root
    for (const [name, g] of subgraph.subgraphs) {
      g.owner = root;
      root.subgraphs.set(name, g);
    }
    subgraph.subgraphs.clear();
  }
  removeSubgraph(name: string): void {
    const root = this.root;
    const g = root.subgraphs.get(name);
    if (!g) return;
    root.subgraphs.delete(name);
    g.owner = undefined;
    g.parentNode = undefined;
  }
  /** Looks up a subgraph by name from any graph of the tree. */
  subgraph(name: string): Graph | undefined {
    return this.root.subgraphs.get(name);
  }
  /** All subgraphs called by `node`, in its `subgraphNames` order. */
  subgraphsOf(node: Node): Graph[] {
    return node.opDesc.subgraphNames.map((n) => this.root.subgraphs.get(n)).filter((g): g is Graph => g !== undefined);
  }

  /**
   * Deep copy of this graph (and, for a root, all its subgraphs). Node ids, edge order and
   * attributes are preserved; tensor data inside attributes is shared (treated as immutable).
   */
  clone(name = this.name): Graph {
    const copy = cloneInto(this, new Graph(name));
    if (this.isRoot) {
      const nodeMaps = new Map<Graph, Map<Node, Node>>();
      nodeMaps.set(this, copy.map);
      for (const [sgName, sg] of this.subgraphs) {
        const c = cloneInto(sg, new Graph(sgName));
        nodeMaps.set(sg, c.map);
        c.graph.owner = copy.graph;
        copy.graph.subgraphs.set(sgName, c.graph);
      }
      for (const [sgName, sg] of this.subgraphs) {
        const parent = sg.parentNode;
        const parentCopy = parent?.graph ? nodeMaps.get(parent.graph)?.get(parent) : undefined;
        const target = copy.graph.subgraphs.get(sgName);
        if (target && parentCopy) target.parentNode = parentCopy;
      }
    }
    return copy.graph;
  }
}

function cloneInto(source: Graph, target: Graph): { graph: Graph; map: Map<Node, Node> } {
  for (const [k, v] of source.attrs) target.attrs.set(k, v);
  const map = new Map<Node, Node>();
  for (const n of source.nodes) {
    map.set(n, target.addNode(cloneOpDesc(n.opDesc), { inputs: n.inData.length, outputs: n.outData.length }));
  }
  for (const n of source.nodes) {
    const c = map.get(n) as Node;
    for (const a of n.inData) {
      if (!a.peer) continue;
      const p = map.get(a.peer.node);
      const out = p?.outData[a.peer.index];
      const inp = c.inData[a.index];
      if (out && inp) target.link(out, inp);
    }
    for (const p of n.outControl.peers) {
      const to = map.get(p.node);
      if (to) target.addControlEdge(c, to);
    }
  }
  // keep consumer order of each output as in the source
  for (const n of source.nodes) {
    const c = map.get(n) as Node;
    n.outData.forEach((out, i) => {
      const cOut = c.outData[i];
      if (!cOut) return;
      const order = out.peers.map((p) => map.get(p.node)?.inData[p.index]);
      cOut.peers.sort((x, y) => order.indexOf(x) - order.indexOf(y));
    });
  }
  return { graph: target, map };
}
