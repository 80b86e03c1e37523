import type { AttrValue } from '@tsge/metadef';
import type { IGraphProto } from '../internal/proto.js';

/**
 * A node between the protobuf and the Graph: attributes already decoded, subgraph attributes
 * still protobuf. Function inlining, contrib mapping and opset upgrades rewrite lists of these.
 */
export interface RawNode {
  name: string;
  opType: string;
  /** Normalized: '' is written 'ai.onnx'. */
  domain: string;
  inputs: string[];
  outputs: string[];
  attrs: Map<string, AttrValue>;
  /** Graph-valued attributes (If branches, Loop/Scan bodies). */
  graphs: Map<string, IGraphProto>;
  /** Inside function bodies: attribute name → the caller's attribute it refers to. */
  refs: Map<string, string>;
  /** NodeProto.overload: picks among model-local functions of one name. */
  overload?: string;
  /** Set once an upgrade or contrib rule rewrote the node, or made it: it has canonical semantics. */
  canonical?: boolean;
  /** The opset of this node's domain, when it differs from the model's (nodes from a function body). */
  opset?: number;
}

export function rawNode(init: Partial<RawNode> & Pick<RawNode, 'name' | 'opType' | 'inputs' | 'outputs'>): RawNode {
  return {
    domain: 'ai.onnx',
    attrs: new Map(),
    graphs: new Map(),
    refs: new Map(),
    ...init,
  };
}
