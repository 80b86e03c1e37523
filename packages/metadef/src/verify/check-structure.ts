import type { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import type { Reporter } from './reporter.js';

/** Node names are unique within a graph. */
export function checkNames(graph: Graph, report: Reporter): void {
  const seen = new Set<string>();
  const reported = new Set<string>();
  for (const node of graph.nodes) {
    if (seen.has(node.name) && !reported.has(node.name)) {
      reported.add(node.name);
      report.node('TSGE-E1004', graph, node, {});
    }
    seen.add(node.name);
  }
}

/** Both ends of every data and control edge agree, and no edge leaves the graph. */
export function checkAnchors(graph: Graph, report: Reporter): void {
  const inside = (n: Node): boolean => graph.has(n) && n.graph === graph;
  for (const node of graph.nodes) {
    if (node.graph !== graph) report.node('TSGE-E1021', graph, node, { expected: graph.name, actual: node.graph?.name ?? '(none)' });
    node.inData.forEach((anchor, i) => {
      if (anchor.node !== node || anchor.index !== i) report.node('TSGE-E1001', graph, node, { index: i });
      const peer = anchor.peer;
      if (!peer) return;
      if (!peer.peers.includes(anchor)) report.node('TSGE-E1001', graph, node, { index: i });
      if (!inside(peer.node)) report.node('TSGE-E1006', graph, node, { producer: peer.node.name });
    });
    node.outData.forEach((anchor, i) => {
      const bad = anchor.node !== node || anchor.index !== i || anchor.peers.some((p) => p.peer !== anchor);
      if (bad) report.node('TSGE-E1002', graph, node, { index: i });
      for (const p of anchor.peers) if (!inside(p.node)) report.node('TSGE-E1006', graph, p.node, { producer: node.name });
    });
    for (const p of node.inControl.peers) {
      if (!p.peers.includes(node.inControl) || node.inControl.node !== node) report.node('TSGE-E1014', graph, node, {});
      if (!inside(p.node)) report.node('TSGE-E1006', graph, node, { producer: p.node.name });
    }
    for (const p of node.outControl.peers) {
      if (!p.peers.includes(node.outControl) || node.outControl.node !== node) report.node('TSGE-E1014', graph, node, {});
      if (!inside(p.node)) report.node('TSGE-E1006', graph, p.node, { producer: node.name });
    }
  }
}

/** Output descs match the output anchors; input descs carry the producer's dtype. */
export function checkDescs(graph: Graph, report: Reporter): void {
  for (const node of graph.nodes) {
    const desc = node.opDesc;
    if (desc.outputDescs.length !== node.outData.length) {
      report.node('TSGE-E1018', graph, node, { actual: desc.outputDescs.length, expected: node.outData.length });
    }
    node.inData.forEach((anchor, i) => {
      const peer = anchor.peer;
      const mine = desc.inputDescs[i];
      const theirs = peer?.node.opDesc.outputDescs[peer.index];
      if (mine && theirs && mine.dtype !== theirs.dtype)
        report.node('TSGE-E1009', graph, node, { index: i, actual: mine.dtype, expected: theirs.dtype });
    });
  }
}
