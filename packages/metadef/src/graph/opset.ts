import type { Node } from './node.js';

/**
 * The opset a node's kernel sees: its own `_opset` attribute when it has one (nodes inlined from
 * model-local functions), else the root graph's `_opset_imports` entry for its domain (0 if none).
 */
export function opsetOf(node: Node): number {
  const own = node.opDesc.attrs.get('_opset');
  if (own?.kind === 'int') return own.value;
  const imports = node.graph?.root.attrs.get('_opset_imports');
  if (imports?.kind !== 'named_attrs') return 0;
  const domain = node.opDesc.domain;
  const entry = imports.value.attrs.get(domain) ?? (domain === 'ai.onnx' ? imports.value.attrs.get('') : undefined);
  return entry?.kind === 'int' ? entry.value : 0;
}
