import type { AttrMap, AttrValue } from '../types/attr.js';
import { type TensorDesc, cloneTensorDesc } from '../types/tensor-desc.js';

/** The canonical ONNX domain; `''` and `'ai.onnx'` are the same domain. */
export const ONNX_DOMAIN = 'ai.onnx';
/** Domain of ops tsge introduces (fused ops, layout transforms, generated kernels). */
export const TSGE_DOMAIN = 'tsge';

/** GE special node types. */
export const DATA = 'Data';
export const CONST = 'Const';
export const NET_OUTPUT = 'NetOutput';
export const VARIABLE = 'Variable';
export const NO_OP = 'NoOp';

/** Attribute names with a fixed meaning across tsge (leading `_` = internal). */
export const ATTR_INDEX = 'index';
export const ATTR_VALUE = 'value';
export const ATTR_PARENT_NODE_INDEX = '_parent_node_index';

/**
 * What a node is: name, op type, domain, attributes and the descs of its inputs and outputs.
 * Compile-time results (stream id, memory offsets, kernel binding) are written here by the compiler.
 */
export interface OpDesc {
  name: string;
  type: string;
  domain: string;
  attrs: AttrMap;
  inputDescs: TensorDesc[];
  outputDescs: TensorDesc[];
  /** Names of inputs/outputs as in the source model (edge names), for diagnostics and I/O. */
  inputNames: string[];
  outputNames: string[];
  /** Names of subgraphs owned by the root graph that this node calls, in order. */
  subgraphNames: string[];
  streamId?: number;
  /** Byte offsets of outputs/inputs in the arena (written by memory planning). */
  outputOffsets?: number[];
  inputOffsets?: number[];
  workspaceBytes?: number[];
}

export interface OpDescInit {
  name: string;
  type: string;
  domain?: string;
  attrs?: Iterable<readonly [string, AttrValue]>;
  inputDescs?: TensorDesc[];
  outputDescs?: TensorDesc[];
  inputNames?: string[];
  outputNames?: string[];
  subgraphNames?: string[];
}

export function createOpDesc(init: OpDescInit): OpDesc {
  return {
    name: init.name,
    type: init.type,
    domain: normalizeDomain(init.domain ?? ONNX_DOMAIN),
    attrs: new Map(init.attrs ?? []),
    inputDescs: init.inputDescs ?? [],
    outputDescs: init.outputDescs ?? [],
    inputNames: init.inputNames ?? [],
    outputNames: init.outputNames ?? [],
    subgraphNames: init.subgraphNames ?? [],
  };
}

export function normalizeDomain(domain: string): string {
  return domain === '' ? ONNX_DOMAIN : domain;
}

export function cloneOpDesc(desc: OpDesc): OpDesc {
  return {
    ...desc,
    attrs: new Map(desc.attrs),
    inputDescs: desc.inputDescs.map(cloneTensorDesc),
    outputDescs: desc.outputDescs.map(cloneTensorDesc),
    inputNames: [...desc.inputNames],
    outputNames: [...desc.outputNames],
    subgraphNames: [...desc.subgraphNames],
    ...(desc.outputOffsets ? { outputOffsets: [...desc.outputOffsets] } : {}),
    ...(desc.inputOffsets ? { inputOffsets: [...desc.inputOffsets] } : {}),
    ...(desc.workspaceBytes ? { workspaceBytes: [...desc.workspaceBytes] } : {}),
  };
}
