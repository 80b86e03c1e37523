import type { AttrValue, HostTensor, Shape } from '@tsge/metadef';
import { type RawNode, rawNode } from '../import/raw-node.js';

/** What an upgrade rule may do besides editing its node: add helper nodes in front of it. */
export interface UpgradeContext {
  /** Opset version of the node's domain in the model. */
  readonly opset: number;
  /** Adds a `Constant` producing `tensor`; returns its value name. */
  constant(hint: string, tensor: HostTensor): string;
  /** Adds a helper node (inserted before the node being upgraded); returns its output names. */
  helper(opType: string, inputs: readonly string[], options?: HelperOptions): string[];
  /** Shape of a value when the model states it (value_info, inputs, initializers, constants). */
  shapeOf(name: string): Shape | undefined;
  /** Reports that a node could not be upgraded (a warning; the node is kept as it is). */
  warn(message: string): void;
}

export interface HelperOptions {
  readonly outputs?: number;
  readonly attrs?: Readonly<Record<string, AttrValue>>;
  /** Name of the (single) output, when it must be a value the model already uses. */
  readonly rename?: string;
}

/**
 * One table entry: applies to `opType` in `domain` (default ai.onnx) when the model's opset for the
 * domain is below `before`. `apply` edits the node in place (attributes to inputs, renames).
 */
export interface UpgradeRule {
  readonly opType: string;
  readonly domain?: string;
  readonly before: number;
  readonly description: string;
  apply(node: RawNode, ctx: UpgradeContext): void;
}

/** Builds the helper-node machinery for one node; `added` collects the helpers. */
export function createUpgradeContext(
  node: RawNode,
  opset: number,
  added: RawNode[],
  services: { fresh(hint: string): string; shapeOf(name: string): Shape | undefined; warn(message: string): void },
): UpgradeContext {
  return {
    opset,
    constant(hint, tensor) {
      const name = services.fresh(`${node.name}/${hint}`);
      added.push(
        rawNode({ name, opType: 'Constant', inputs: [], outputs: [name], attrs: new Map([['value', { kind: 'tensor', value: tensor }]]) }),
      );
      return name;
    },
    helper(opType, inputs, options = {}) {
      const base = services.fresh(`${node.name}/${opType}`);
      const count = options.outputs ?? 1;
      const outputs =
        options.rename !== undefined ? [options.rename] : Array.from({ length: count }, (_, i) => (count === 1 ? base : `${base}:${i}`));
      added.push(
        rawNode({
          name: base,
          opType,
          inputs: [...inputs],
          outputs,
          attrs: new Map(Object.entries(options.attrs ?? {})),
          canonical: true,
        }),
      );
      return outputs;
    },
    shapeOf: services.shapeOf,
    warn: services.warn,
  };
}
