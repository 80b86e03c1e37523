import type { FusionMatch, FusionPassV1, FusionPattern, Graph, GraphPassV1, Node, OutDataAnchor } from '@tsge/metadef';
import { ATTR_INDEX, DATA, NET_OUTPUT, topologicalSort } from '@tsge/metadef';
import { linkedInputCount } from '../graph-utils.js';

/** Ops whose two inputs may be matched in either order. */
const COMMUTATIVE = new Set(['Add', 'Mul', 'Max', 'Min', 'And', 'Or', 'Xor', 'Equal', 'Sum']);

interface Bindings {
  nodes: Map<Node, Node>;
  inputs: Map<number, OutDataAnchor>;
}

/**
 * Matches `pattern` rooted at `candidate` (the graph node standing for the producer of the
 * pattern's first output). Data nodes of the pattern bind to any producer (the same Data index
 * must bind the same producer); other nodes match by op type (or `anyOf`), domain and number of
 * linked inputs. Intermediate results may not be used outside the match. The search backtracks
 * over the operand orders of commutative ops until `accept` (default: any) takes a match, so a
 * requirement such as "this input is constant" picks the right order of `Mul(c, x)`.
 */
export function matchAt(pattern: FusionPattern, candidate: Node, accept?: (match: FusionMatch) => boolean): FusionMatch | undefined {
  const net = pattern.graph.outputNode();
  const rootAnchor = net?.inData[0]?.peer;
  // most candidates fail here: check before allocating bindings
  if (!net || !rootAnchor || !typeMatches(pattern, rootAnchor.node, candidate)) return undefined;
  const b: Bindings = { nodes: new Map(), inputs: new Map() };
  let found: FusionMatch | undefined;
  matchNode(pattern, rootAnchor.node, candidate, b, () => {
    const m = completeMatch(pattern, net, b);
    if (m && (!accept || accept(m))) found = m;
    return found !== undefined;
  });
  return found;
}

/** The match for complete bindings, or undefined when they leave a node out or let an intermediate escape. */
function completeMatch(pattern: FusionPattern, net: Node, b: Bindings): FusionMatch | undefined {
  const ops = pattern.graph.nodes.filter((n) => n.type !== DATA && n.type !== NET_OUTPUT);
  if (ops.some((p) => !b.nodes.has(p))) return undefined;
  const outputs: OutDataAnchor[] = [];
  for (const a of net.inData) {
    const p = a.peer;
    const g = p ? b.nodes.get(p.node)?.outData[p.index] : undefined;
    if (!g) return undefined;
    outputs.push(g);
  }
  // injective, and only the pattern outputs escape the match
  const matched = new Set(b.nodes.values());
  if (matched.size !== b.nodes.size) return undefined;
  const escaping = new Set(outputs);
  for (const g of matched) {
    if (g.outControl.peers.length > 0 || g.inControl.peers.length > 0) return undefined;
    for (const out of g.outData) {
      if (escaping.has(out)) continue;
      if (out.peers.some((peer) => !matched.has(peer.node))) return undefined;
    }
  }
  const inputs: OutDataAnchor[] = [];
  const dataCount = pattern.graph.nodes.filter((n) => n.type === DATA).length;
  for (let i = 0; i < dataCount; i++) {
    const a = b.inputs.get(i);
    if (!a) return undefined;
    inputs.push(a);
  }
  const nodes = new Map<string, Node>();
  for (const [p, g] of b.nodes) nodes.set(p.name, g);
  return { pattern: pattern.name, nodes, inputs, outputs };
}

function typeMatches(pattern: FusionPattern, p: Node, g: Node): boolean {
  const allowed = pattern.anyOf?.[p.type] ?? [p.type];
  return allowed.includes(g.type) && p.opDesc.domain === g.opDesc.domain;
}

/** Continuation: called once the bindings so far hold; returns whether the whole match succeeded. */
type Then = () => boolean;

function matchNode(pattern: FusionPattern, p: Node, g: Node, b: Bindings, then: Then): boolean {
  const bound = b.nodes.get(p);
  if (bound) return bound === g && then();
  if (!typeMatches(pattern, p, g) || linkedInputCount(g) !== p.inData.length) return false;
  const orders =
    COMMUTATIVE.has(g.type) && p.inData.length === 2
      ? [
          [0, 1],
          [1, 0],
        ]
      : [p.inData.map((_, i) => i)];
  for (const order of orders) {
    const saved: Bindings = { nodes: new Map(b.nodes), inputs: new Map(b.inputs) };
    b.nodes.set(p, g);
    if (matchInputs(pattern, p, g, order, 0, b, then)) return true;
    b.nodes = saved.nodes;
    b.inputs = saved.inputs;
  }
  return false;
}

function matchInputs(pattern: FusionPattern, p: Node, g: Node, order: readonly number[], pi: number, b: Bindings, then: Then): boolean {
  if (pi === order.length) return then();
  return matchInput(pattern, p, pi, g, order[pi] as number, b, () => matchInputs(pattern, p, g, order, pi + 1, b, then));
}

function matchInput(pattern: FusionPattern, p: Node, pi: number, g: Node, gi: number, b: Bindings, then: Then): boolean {
  const pa = p.inData[pi]?.peer;
  const ga = g.inData[gi]?.peer;
  if (!pa) return !ga && then();
  if (!ga) return false;
  if (pa.node.type === DATA) {
    const a = pa.node.opDesc.attrs.get(ATTR_INDEX);
    const index = a?.kind === 'int' ? a.value : -1;
    const prior = b.inputs.get(index);
    if (prior) return prior === ga && then();
    b.inputs.set(index, ga);
    if (then()) return true;
    b.inputs.delete(index);
    return false;
  }
  return ga.index === pa.index && matchNode(pattern, pa.node, ga.node, b, then);
}

/** All non-overlapping matches of a pattern, in topological order. */
export function findMatches(graph: Graph, pattern: FusionPattern): FusionMatch[] {
  const sorted = topologicalSort(graph);
  if (!sorted.ok) return [];
  const used = new Set<Node>();
  const out: FusionMatch[] = [];
  for (const node of sorted.order) {
    const m = matchAt(pattern, node);
    if (!m || [...m.nodes.values()].some((n) => used.has(n))) continue;
    for (const n of m.nodes.values()) used.add(n);
    out.push(m);
  }
  return out;
}

/** Runs a FusionPassV1 as a graph pass: each match that meets the requirements is replaced. */
export function fusionAsPass(fusion: FusionPassV1): GraphPassV1 {
  return {
    specVersion: 'v1',
    name: fusion.name,
    level: fusion.level,
    run(graph, ctx) {
      let applied = 0;
      for (let sweep = 0; sweep < 4; sweep++) {
        let changed = false;
        for (const pattern of fusion.patterns()) {
          const sorted = topologicalSort(graph);
          if (!sorted.ok) break;
          // match and replace one at a time: a replacement removes nodes later matches would bind
          for (const node of sorted.order) {
            if (node.graph !== graph) continue;
            const m = matchAt(
              pattern,
              node,
              (match) =>
                match.inputs.every((a) => a.node.graph === graph) && (!fusion.requirements || fusion.requirements(match, graph, ctx)),
            );
            if (!m) continue;
            const created = fusion.replace(m, graph, ctx);
            for (const n of created) ctx.revisit(n);
            applied++;
            changed = true;
          }
        }
        if (!changed) break;
      }
      if (applied) ctx.count(fusion.name, applied);
      return { changed: applied > 0 };
    },
  };
}

/**
 * Replaces a match by one new node: `inputs` feed it in order and its outputs take over the
 * match's outputs; the matched nodes are removed.
 */
export function replaceMatchWith(graph: Graph, match: FusionMatch, node: Node, inputs: readonly (OutDataAnchor | undefined)[]): Node {
  inputs.forEach((a, i) => {
    if (a) graph.link(a, node.inData[i] as Node['inData'][number]);
  });
  match.outputs.forEach((out, i) => {
    const target = node.outData[i];
    if (target) graph.replaceAllUses(out, target);
  });
  for (const n of match.nodes.values()) if (n.graph === graph) graph.removeNode(n);
  return node;
}
