import type { GraphPassV1, HostTensor, InDataAnchor, Node, OutDataAnchor } from '@tsge/metadef';
import { CONST, TSGE_DOMAIN, attr, cloneOpDesc, constValueOf, createOpDesc, createTensor } from '@tsge/metadef';
import { FUSED_MATMUL, SWIGLU } from '@tsge/ops';
import { addConst, uniqueName } from '../graph-utils.js';
import { STORAGE_DTYPE } from './precision-storage.js';

/** One projection: x · B (+ bias), B a constant [K, N] read by nothing else. */
interface Projection {
  readonly node: Node;
  readonly b: Float32Array;
  readonly k: number;
  readonly n: number;
  readonly bias?: Float32Array;
  readonly storage?: string;
}

/** The sole consumer input of a node's output (and nothing else reads the node). */
function soleUse(node: Node): InDataAnchor | undefined {
  const peers = node.outData[0]?.peers ?? [];
  return node.outData.length === 1 && peers.length === 1 && node.outControl.peers.length === 0 ? peers[0] : undefined;
}

/** A float32 constant read only by `node`. */
function ownConst(anchor: OutDataAnchor | undefined, node: Node): HostTensor | undefined {
  if (!anchor || anchor.node.type !== CONST || anchor.peers.some((p) => p.node !== node) || anchor.peers.length !== 1) return undefined;
  const value = constValueOf(anchor.node);
  return value?.type === 'float32' ? value : undefined;
}

/** MatMul, or FusedMatMul with at most a bias (no activation, no generated epilogue), of a constant B. */
function projectionOf(node: Node): Projection | undefined {
  const matmul = node.type === 'MatMul' && node.opDesc.domain === 'ai.onnx' && node.inData.length === 2;
  const fused = node.type === FUSED_MATMUL && node.opDesc.domain === TSGE_DOMAIN && node.inData.length <= 3;
  if (!matmul && !fused) return undefined;
  if (fused) {
    const activation = node.opDesc.attrs.get('activation');
    if (activation && !(activation.kind === 'string' && activation.value === 'None')) return undefined;
    if (node.opDesc.attrs.has('description')) return undefined;
  }
  const b = ownConst(node.inData[1]?.peer, node);
  if (b?.dims.length !== 2) return undefined;
  const [k, n] = b.dims as [number, number];
  const biasAnchor = node.inData[2]?.peer;
  const bias = biasAnchor ? ownConst(biasAnchor, node) : undefined;
  if (biasAnchor && (bias?.dims.length !== 1 || bias.dims[0] !== n)) return undefined;
  const out = node.opDesc.outputDescs[0];
  if (out?.dtype !== 'float32' || !Array.isArray(out.shape) || out.shape.length < 2) return undefined;
  const storage = (node.inData[1]?.peer?.node.opDesc.attrs.get(STORAGE_DTYPE) as { value?: string } | undefined)?.value;
  return {
    node,
    b: b.data as Float32Array,
    k,
    n,
    ...(bias ? { bias: bias.data as Float32Array } : {}),
    ...(storage ? { storage } : {}),
  };
}

const intAttr = (node: Node, name: string): number | undefined => {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'int' ? a.value : undefined;
};

/**
 * Projections of one input whose outputs a consumer can take packed: GroupQueryAttention's query,
 * key and value (inputs 0–2, in its packed QKV layout: all query heads, then key, then value) or
 * SwiGLU's gate and up (its two-halves form). Returns them in the packed order, and the consumer.
 */
function packedGroup(x: OutDataAnchor): { parts: Projection[]; consumer: Node } | undefined {
  const projections = new Map<InDataAnchor, Projection>();
  for (const peer of x.peers) {
    if (peer.index !== 0) continue;
    const p = projectionOf(peer.node);
    const use = p && soleUse(peer.node);
    if (p && use) projections.set(use, p);
  }
  const byConsumer = new Map<Node, Projection[]>();
  for (const [use, p] of projections) {
    const list = byConsumer.get(use.node) ?? [];
    list[use.index] = p;
    byConsumer.set(use.node, list);
  }
  for (const [consumer, list] of byConsumer) {
    if (consumer.type === 'GroupQueryAttention' && consumer.opDesc.domain === 'com.microsoft') {
      const [q, key, v] = list;
      const heads = intAttr(consumer, 'num_heads');
      const kvHeads = intAttr(consumer, 'kv_num_heads');
      if (!q || !key || !v || !heads || !kvHeads || key.n !== v.n || key.n % kvHeads !== 0) continue;
      if (q.n !== (key.n / kvHeads) * heads) continue;
      return { parts: [q, key, v], consumer };
    }
    if (consumer.type === SWIGLU && consumer.opDesc.domain === TSGE_DOMAIN && consumer.inData.length === 2) {
      const [gate, up] = list;
      if (gate && up && gate.n === up.n) return { parts: [gate, up], consumer };
    }
  }
  return undefined;
}

/** Columns of each [K, Nᵢ] side by side: [K, ΣNᵢ]. */
function concatColumns(parts: readonly Projection[]): Float32Array {
  const k = parts[0]?.k ?? 0;
  const width = parts.reduce((sum, p) => sum + p.n, 0);
  const out = new Float32Array(k * width);
  for (let r = 0; r < k; r++) {
    let at = r * width;
    for (const p of parts) {
      out.set(p.b.subarray(r * p.n, (r + 1) * p.n), at);
      at += p.n;
    }
  }
  return out;
}

/**
 * Transformer projections that read one input and feed one consumer that takes them packed — the
 * query/key/value projections of GroupQueryAttention, the gate/up projections of SwiGLU — become
 * one MatMul (FusedMatMul when they carry biases) over their weights concatenated column-wise at
 * compile time, and the consumer reads its packed form. A decode step then streams the weights in
 * one product instead of two or three small ones (one dispatch and one hand-off to the workers).
 * Runs before the weights are packed into panels.
 */
export const concatProjectionsPass: GraphPassV1 = {
  specVersion: 'v1',
  name: 'concat-projections',
  level: 3,
  run(graph, ctx) {
    let changed = false;
    const inputs = new Set<OutDataAnchor>();
    for (const node of graph.nodes) {
      const x = node.inData[0]?.peer;
      if (x && projectionOf(node)) inputs.add(x);
    }
    for (const x of inputs) {
      const group = packedGroup(x);
      if (!group) continue;
      const { parts, consumer } = group;
      const [first] = parts as [Projection];
      const withBias = parts.filter((p) => p.bias).length;
      if (parts.some((p) => p.k !== first.k || p.storage !== first.storage) || (withBias !== 0 && withBias !== parts.length)) continue;
      const width = parts.reduce((sum, p) => sum + p.n, 0);
      const weight = addConst(graph, `${first.node.name}_concat_weight`, createTensor('float32', [first.k, width], concatColumns(parts)));
      if (first.storage) weight.opDesc.attrs.set(STORAGE_DTYPE, attr.string(first.storage));
      const inputAnchors = [x, weight.outData[0] as OutDataAnchor];
      if (withBias) {
        const bias = new Float32Array(width);
        let at = 0;
        for (const p of parts) {
          bias.set(p.bias as Float32Array, at);
          at += p.n;
        }
        inputAnchors.push(
          addConst(graph, `${first.node.name}_concat_bias`, createTensor('float32', [width], bias)).outData[0] as OutDataAnchor,
        );
      }
      const outDesc = first.node.opDesc.outputDescs[0] as NonNullable<(typeof first.node.opDesc.outputDescs)[0]>;
      const shape = [...outDesc.shape.slice(0, -1), width];
      const name = uniqueName(graph, `${first.node.name}_concat`);
      const node = graph.addNode(
        createOpDesc({
          name,
          type: withBias ? FUSED_MATMUL : 'MatMul',
          ...(withBias ? { domain: TSGE_DOMAIN } : {}),
          attrs: withBias ? [['activation', attr.string('None')] as const, ['activation_params', attr.floats([])] as const] : [],
          inputDescs: inputAnchors.map((a) => a.node.opDesc.outputDescs[a.index] as NonNullable<typeof outDesc>),
          outputDescs: [{ ...outDesc, shape, originShape: shape }],
          outputNames: [name],
        }),
        { inputs: inputAnchors.length, outputs: 1 },
      );
      for (const [i, a] of inputAnchors.entries()) graph.link(a, node.inData[i] as InDataAnchor);
      const packed = node.outData[0] as OutDataAnchor;
      if (consumer.type === SWIGLU) {
        // the two-halves form: a SwiGLU of one input
        const desc = cloneOpDesc(consumer.opDesc);
        desc.name = uniqueName(graph, `${consumer.name}_halves`);
        desc.inputDescs = [node.opDesc.outputDescs[0] as NonNullable<typeof outDesc>];
        const halves = graph.addNode(desc, { inputs: 1, outputs: 1 });
        graph.link(packed, halves.inData[0] as InDataAnchor);
        graph.replaceAllUses(consumer.outData[0] as OutDataAnchor, halves.outData[0] as OutDataAnchor);
        graph.removeNode(consumer);
      } else {
        // GroupQueryAttention reads the packed product at input 0; key and value become absent
        for (let i = 0; i < parts.length; i++) graph.unlink(consumer.inData[i] as InDataAnchor);
        graph.link(packed, consumer.inData[0] as InDataAnchor);
      }
      for (const p of parts) {
        const sources = p.node.inData.slice(1).flatMap((a) => (a.peer ? [a.peer.node] : []));
        graph.removeNode(p.node);
        for (const s of sources) if (s.outData.every((o) => o.peers.length === 0)) graph.removeNode(s);
      }
      ctx.count('projections-concatenated');
      changed = true;
    }
    return { changed };
  },
};
