import type { AttrValue } from '@tsge/metadef';
import type { RawNode } from '../import/raw-node.js';

/** Removes and returns an attribute. */
export function takeAttr(node: RawNode, name: string): AttrValue | undefined {
  const a = node.attrs.get(name);
  node.attrs.delete(name);
  return a;
}

export function numbersOf(a: AttrValue | undefined): number[] | undefined {
  if (!a) return undefined;
  if (a.kind === 'ints' || a.kind === 'floats') return [...a.value];
  if (a.kind === 'int' || a.kind === 'float') return [a.value];
  return undefined;
}

export function numberOf(a: AttrValue | undefined): number | undefined {
  if (!a) return undefined;
  if (a.kind === 'int' || a.kind === 'float') return a.value;
  return undefined;
}

/** Sets input `index`, filling skipped optional slots with ''. */
export function setInput(node: RawNode, index: number, name: string): void {
  while (node.inputs.length < index) node.inputs.push('');
  node.inputs[index] = name;
}
