import type { Shape } from '@tsge/metadef';
import type { RawNode } from '../import/raw-node.js';
import { createUpgradeContext } from './upgrade-context.js';
import { UPGRADE_RULES } from './rules.js';
import type { UpgradeRule } from './upgrade-context.js';

export interface UpgradeServices {
  /** Opset of a domain in the model (nodes from function bodies carry their own). */
  opsetOf(node: RawNode): number;
  fresh(hint: string): string;
  shapeOf(name: string): Shape | undefined;
  warn(node: RawNode, message: string): void;
}

const MAX_RULES_PER_NODE = 8;

/**
 * Rewrites nodes of older opsets into the canonical (latest) form, table-driven. Helper nodes a
 * rule adds come right before the node. `consumed_inputs` (opsets < 6) is dropped everywhere.
 */
export function upgradeNodes(
  nodes: readonly RawNode[],
  services: UpgradeServices,
  rules: readonly UpgradeRule[] = UPGRADE_RULES,
): RawNode[] {
  const out: RawNode[] = [];
  for (const node of nodes) {
    let opset = services.opsetOf(node);
    const domain = node.domain;
    if (node.domain === 'ai.onnx' && opset < 7) node.attrs.delete('consumed_inputs');
    const added: RawNode[] = [];
    const applied = new Set<unknown>();
    for (let round = 0; round < MAX_RULES_PER_NODE; round++) {
      // a node mapped into another domain (contrib → ai.onnx) is canonical already
      if (node.domain !== domain) opset = Number.POSITIVE_INFINITY;
      const rule = rules.find(
        (r) => !applied.has(r) && r.opType === node.opType && (r.domain ?? 'ai.onnx') === node.domain && opset < r.before,
      );
      if (!rule) break;
      applied.add(rule);
      node.canonical = true;
      rule.apply(
        node,
        createUpgradeContext(node, opset, added, {
          fresh: services.fresh,
          shapeOf: services.shapeOf,
          warn: (message) => services.warn(node, message),
        }),
      );
    }
    out.push(...added, node);
  }
  return out;
}
