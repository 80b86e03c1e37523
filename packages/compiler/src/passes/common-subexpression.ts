import type { AttrValue, HostTensor, Node } from '@tsge/metadef';
import { CONST, DATA, NET_OUTPUT, constValueOf, topologicalSort } from '@tsge/metadef';
import { definePass } from '../pass-manager.js';

const IMPURE = new Set(['RandomNormal', 'RandomUniform', 'RandomNormalLike', 'RandomUniformLike', 'Multinomial', 'Bernoulli']);
/** Constants above this size are not compared (hashing them costs more than it saves). */
const MAX_CONST_BYTES = 1 << 20;

/**
 * Common-subexpression elimination: equal constants merge first, then nodes with the same op,
 * attributes and producers, in topological order so merges cascade.
 */
export const commonSubexpressionPass = definePass({
  name: 'common-subexpression',
  level: 1,
  run(graph, ctx) {
    const sorted = topologicalSort(graph);
    if (!sorted.ok) return { changed: false };
    const seen = new Map<string, Node>();
    const ids = new Map<Node, number>();
    let merged = 0;
    for (const node of sorted.order) {
      ids.set(node, ids.size);
      const key = keyOf(node, ids);
      if (key === undefined) continue;
      const twin = seen.get(key);
      if (twin && !sameConstant(twin, node)) continue;
      if (!twin) {
        seen.set(key, node);
        continue;
      }
      node.outData.forEach((out, i) => {
        const target = twin.outData[i];
        if (target) graph.replaceAllUses(out, target);
      });
      for (const p of node.outControl.peers) graph.addControlEdge(twin, p.node);
      graph.removeNode(node);
      merged++;
    }
    if (merged) ctx.count('cse', merged);
    return { changed: merged > 0 };
  },
});

function keyOf(node: Node, ids: Map<Node, number>): string | undefined {
  const desc = node.opDesc;
  if (desc.type === DATA || desc.type === NET_OUTPUT || IMPURE.has(desc.type) || desc.subgraphNames.length > 0) return undefined;
  if (node.inControl.peers.length > 0) return undefined;
  if (desc.type === CONST) {
    const t = constValueOf(node);
    return t ? constKey(t) : undefined;
  }
  const inputs = node.inData.map((a) => (a.peer ? `${ids.get(a.peer.node)}:${a.peer.index}` : '-')).join(',');
  const attrs = [...desc.attrs.entries()]
    .filter(([name]) => !name.startsWith('_'))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${attrKey(value)}`)
    .join(';');
  return `${desc.domain}::${desc.type}|${node.outData.length}|${inputs}|${attrs}`;
}

/** Bytes of a numeric tensor (a view, no copy). */
function bytesOf(t: HostTensor): Uint8Array | undefined {
  if (Array.isArray(t.data)) return undefined;
  const typed = t.data as Exclude<HostTensor['data'], string[]>;
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

/** FNV-1a over the bytes; equal keys are confirmed byte by byte before merging. */
function hashBytes(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h >>> 0;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function constKey(t: HostTensor): string | undefined {
  if (Array.isArray(t.data)) return t.data.length <= 64 ? `C|${t.type}|${t.dims.join(',')}|${JSON.stringify(t.data)}` : undefined;
  const bytes = bytesOf(t) as Uint8Array;
  if (bytes.length > MAX_CONST_BYTES) return undefined;
  return `C|${t.type}|${t.dims.join(',')}|${bytes.length}|${hashBytes(bytes)}`;
}

/** Hash-equal constants must also be byte-equal. */
function sameConstant(a: Node, b: Node): boolean {
  if (a.opDesc.type !== CONST) return true;
  const x = constValueOf(a);
  const y = constValueOf(b);
  if (!x || !y) return false;
  const bx = bytesOf(x);
  const by = bytesOf(y);
  return bx === undefined || by === undefined ? JSON.stringify(x.data) === JSON.stringify(y.data) : sameBytes(bx, by);
}

let unique = 0;
/** Attributes that are not compared by value make their node unique. */
function attrKey(value: AttrValue): string {
  switch (value.kind) {
    case 'tensor':
      return constKey(value.value) ?? `tensor@${++unique}`;
    case 'bytes':
      return `bytes:${[...value.value].join(',')}`;
    case 'tensors':
    case 'bytes_list':
    case 'graph':
    case 'graphs':
    case 'named_attrs':
    case 'named_attrs_list':
      return `${value.kind}@${++unique}`;
    default:
      return JSON.stringify(value);
  }
}
