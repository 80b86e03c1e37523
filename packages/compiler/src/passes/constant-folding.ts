import type { Graph, HostTensor, KernelRegistry, Node, PassContext } from '@tsge/metadef';
import { CONST, DATA, NET_OUTPUT, constValueOf, createTensor, isHostTensor, isStaticShape, topologicalSort } from '@tsge/metadef';
import { runNodeOnHost } from '@tsge/kernels-js';
import { addConst, descBytes } from '../graph-utils.js';
import { definePass } from '../pass-manager.js';
import { inferOne } from './infer-shapes.js';

/** Folded outputs larger than this stay computed at run time (keeps .om weights bounded). */
export const FOLD_LIMIT_BYTES = 64 * 1024 * 1024;

/** Long folds report progress every this many nodes. */
const PROGRESS_EVERY = 500;

const NON_DETERMINISTIC = new Set(['RandomNormal', 'RandomUniform', 'RandomNormalLike', 'RandomUniformLike', 'Multinomial', 'Bernoulli']);

/**
 * Constant folding: a node whose inputs are all constants runs once on the host with its
 * reference kernel and becomes Const nodes. `Shape`/`Size` of a statically shaped tensor fold
 * without a kernel. Nodes are re-inferred as folding makes their inputs known.
 */
export function constantFoldingPass(
  kernels: KernelRegistry,
  newSymbol: (hint?: string) => string,
  onProgress?: (done: number, total: number) => void,
) {
  return definePass({
    name: 'constant-folding',
    level: 1,
    run(graph, ctx) {
      const sorted = topologicalSort(graph);
      if (!sorted.ok) return { changed: false };
      let changed = false;
      const total = sorted.order.length;
      for (const [done, node] of sorted.order.entries()) {
        if (onProgress && done % PROGRESS_EVERY === PROGRESS_EVERY - 1) onProgress(done + 1, total);
        if (node.graph !== graph) continue;
        inferOne(graph, node, ctx.ops, newSymbol);
        if (foldNode(graph, node, kernels, ctx)) changed = true;
      }
      return { changed };
    },
  });
}

function foldNode(graph: Graph, node: Node, kernels: KernelRegistry, ctx: PassContext): boolean {
  const type = node.type;
  if (type === DATA || type === CONST || type === NET_OUTPUT || node.opDesc.subgraphNames.length > 0 || NON_DETERMINISTIC.has(type))
    return false;
  if (node.outData.every((o) => o.peers.length === 0)) return false;
  const shapeFold = foldShapeOf(node);
  if (shapeFold) return replaceWithConsts(graph, node, [shapeFold], ctx);
  if (node.inData.length === 0 && type !== 'Constant' && type !== 'ConstantOfShape' && type !== 'Range') return false;
  const inputs: (HostTensor | undefined)[] = [];
  for (const a of node.inData) {
    if (!a.peer) {
      inputs.push(undefined);
      continue;
    }
    const t = constValueOf(a.peer.node);
    if (!t) return false;
    inputs.push(t);
  }
  for (const d of node.opDesc.outputDescs) {
    const bytes = descBytes(d);
    if (bytes !== undefined && bytes > FOLD_LIMIT_BYTES) return false;
  }
  let outputs: unknown[];
  try {
    // the one host interpreter runs the node: the kernel the registry prefers ('reference'), the node's opset
    outputs = runNodeOnHost(node, inputs, { kernels });
  } catch {
    return false;
  }
  const tensors: HostTensor[] = [];
  for (const o of outputs) {
    if (!o || !isHostTensor(o as HostTensor) || o === null) return false;
    const t = o as HostTensor;
    if (t.type !== 'string' && t.data.length * ((t.data as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1) > FOLD_LIMIT_BYTES)
      return false;
    tensors.push(t);
  }
  return replaceWithConsts(graph, node, tensors, ctx);
}

/** Shape and Size of a statically shaped input. */
function foldShapeOf(node: Node): HostTensor | undefined {
  if (node.type !== 'Shape' && node.type !== 'Size') return undefined;
  const src = node.inData[0]?.peer;
  const desc = src ? src.node.opDesc.outputDescs[src.index] : undefined;
  if (!desc || !isStaticShape(desc.shape) || (desc.valueKind && desc.valueKind !== 'tensor')) return undefined;
  const dims = desc.shape;
  if (node.type === 'Size') return createTensor('int64', [], BigInt64Array.of(BigInt(dims.reduce((a, b) => a * b, 1))));
  const rank = dims.length;
  const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + rank : v, 0), rank);
  const start = clamp((node.opDesc.attrs.get('start')?.value as number | undefined) ?? 0);
  const endAttr = node.opDesc.attrs.get('end')?.value as number | undefined;
  const end = endAttr === undefined ? rank : clamp(endAttr);
  const slice = dims.slice(start, Math.max(start, end));
  return createTensor(
    'int64',
    [slice.length],
    BigInt64Array.from(slice, (d) => BigInt(d)),
  );
}

function replaceWithConsts(graph: Graph, node: Node, tensors: readonly HostTensor[], ctx: PassContext): boolean {
  const name = node.name;
  const outputNames = node.opDesc.outputNames;
  const consumers = node.outData.map((o) => [...o.peers]);
  graph.removeNode(node);
  tensors.forEach((t, i) => {
    if ((consumers[i] ?? []).length === 0) return;
    const c = addConst(graph, tensors.length === 1 ? name : `${name}_${i}`, t);
    c.opDesc.outputNames = [outputNames[i] ?? c.name];
    for (const peer of consumers[i] ?? []) graph.link(c.outData[0] as Node['outData'][number], peer);
  });
  ctx.count('folded');
  return true;
}
