import type { Diagnostic } from '../errors/diagnostic.js';
import { diagnostic } from '../errors/tsge-error.js';
import type { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import { ATTR_VALUE, CONST } from '../graph/op-desc.js';
import { AttrError, createAttrReader } from '../types/attr.js';
import type { HostTensor } from '../types/tensor.js';
import { type TensorDesc, createTensorDesc } from '../types/tensor-desc.js';
import { InferenceError, type InferenceContextV1, type ValueInfo } from './op-definition.js';
import type { OpRegistry } from './op-registry.js';

export interface InferNodeOptions {
  /** Opset version of the node's domain (default: the definition's sinceVersion). */
  readonly opsetVersion?: number;
  /** Content of inputs beyond Const producers (run time: all inputs). */
  readonly inputValues?: readonly (HostTensor | undefined)[];
  /** Source of fresh symbol names; shared across a graph so symbols stay unique. */
  readonly newSymbol?: (hint?: string) => string;
  readonly inferSubgraph?: InferenceContextV1['inferSubgraph'];
}

export function valueInfoOf(desc: TensorDesc): ValueInfo {
  return {
    dtype: desc.dtype,
    shape: desc.shape,
    ...(desc.shapeRange ? { shapeRange: desc.shapeRange } : {}),
    ...(desc.valueKind && desc.valueKind !== 'tensor' ? { kind: desc.valueKind } : {}),
  };
}

/** The tensor a Const node holds, if `anchorNode` is one. */
export function constValueOf(node: Node | undefined): HostTensor | undefined {
  if (!node || node.opDesc.type !== CONST) return undefined;
  const a = node.opDesc.attrs.get(ATTR_VALUE);
  return a?.kind === 'tensor' ? a.value : undefined;
}

let symbolCounter = 0;
const defaultNewSymbol = (hint = 's'): string => `${hint}_${++symbolCounter}`;

/**
 * Runs the op's inference function for one node, reading input descs from the producers'
 * output descs, and writes the node's output descs. Returns diagnostics (empty on success).
 */
export function inferNode(graph: Graph, node: Node, ops: OpRegistry, options: InferNodeOptions = {}): Diagnostic[] {
  const desc = node.opDesc;
  const def = ops.get(desc.type, desc.domain);
  const location = { graph: graph.name, node: desc.name, opType: desc.type, domain: desc.domain };
  if (!def) return [diagnostic('TSGE-E1015', { node: desc.name, op: `${desc.domain}::${desc.type}` }, location)];
  const inputs: (ValueInfo | undefined)[] = node.inData.map((a) => {
    const p = a.peer;
    if (!p) return undefined;
    const d = p.node.opDesc.outputDescs[p.index];
    return d ? valueInfoOf(d) : undefined;
  });
  const outputs: (ValueInfo | undefined)[] = new Array(node.outData.length).fill(undefined);
  const ctx: InferenceContextV1 = {
    opType: desc.type,
    nodeName: desc.name,
    opsetVersion: options.opsetVersion ?? def.sinceVersion,
    inputCount: node.inData.length,
    outputCount: node.outData.length,
    attrs: createAttrReader(desc.attrs),
    input: (i) => inputs[i],
    inputValue: (i) => options.inputValues?.[i] ?? constValueOf(node.inData[i]?.peer?.node),
    setOutput: (i, info) => {
      if (i >= 0 && i < outputs.length) outputs[i] = info;
    },
    newSymbol: options.newSymbol ?? defaultNewSymbol,
    ...(options.inferSubgraph ? { inferSubgraph: options.inferSubgraph } : {}),
  };
  try {
    def.infer(ctx);
  } catch (e) {
    if (e instanceof InferenceError || e instanceof AttrError) {
      return [diagnostic('TSGE-E4001', { reason: e.message }, location)];
    }
    const reason = e instanceof Error ? e.message : String(e);
    return [diagnostic('TSGE-E4001', { reason: `internal error in inference: ${reason}` }, location)];
  }
  outputs.forEach((info, i) => {
    if (!info) return;
    const old = desc.outputDescs[i];
    const next = createTensorDesc(info.dtype, info.shape, old?.format ?? 'ND');
    if (old) next.originFormat = old.originFormat;
    if (info.shapeRange) next.shapeRange = info.shapeRange;
    if (info.kind && info.kind !== 'tensor') next.valueKind = info.kind;
    desc.outputDescs[i] = next;
  });
  // inputs mirror their producers' outputs
  inputs.forEach((info, i) => {
    if (info) desc.inputDescs[i] = createTensorDesc(info.dtype, info.shape);
  });
  return [];
}
