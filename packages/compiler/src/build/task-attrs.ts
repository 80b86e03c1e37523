import type { AttrValue, Node } from '@tsge/metadef';
import { opsetOf } from '@tsge/metadef';
import type { PlainAttr } from '@tsge/om';

const SCALAR = new Set(['int', 'float', 'string', 'bool', 'dtype']);
const LISTS = new Set(['ints', 'floats', 'strings', 'bools', 'dtypes']);

/** An attribute as the task can carry it exactly (the value MODEL_DEF would decode to), or undefined. */
function plain(v: AttrValue): PlainAttr | undefined {
  if (!SCALAR.has(v.kind) && !LISTS.has(v.kind)) return undefined;
  const number = (x: number, kind: string): number | undefined => {
    if (kind.startsWith('int')) return Number.isSafeInteger(x) ? x : undefined;
    // .air stores float attributes as float32
    const f = Math.fround(x);
    return Number.isFinite(f) ? f : undefined;
  };
  if (v.kind === 'int' || v.kind === 'float') {
    const value = number(v.value, v.kind);
    return value === undefined ? undefined : { kind: v.kind, value };
  }
  if (v.kind === 'ints' || v.kind === 'floats') {
    const value = v.value.map((x) => number(x, v.kind));
    return value.every((x) => x !== undefined) ? { kind: v.kind, value: value as number[] } : undefined;
  }
  if (v.kind === 'string' || v.kind === 'dtype') return { kind: v.kind, value: v.value };
  if (v.kind === 'bool') return { kind: 'bool', value: v.value };
  if (v.kind === 'strings' || v.kind === 'dtypes') return { kind: v.kind, value: [...v.value] };
  if (v.kind === 'bools') return { kind: 'bools', value: [...v.value] };
  return undefined;
}

/**
 * A kernel task's attributes and opset when every attribute is plain, so the executor can run the
 * task without decoding MODEL_DEF; undefined otherwise (subgraphs, tensors, non-finite floats).
 */
export function taskAttrs(node: Node): { attrs: Record<string, PlainAttr>; opset: number } | undefined {
  const attrs: Record<string, PlainAttr> = {};
  for (const [name, value] of node.opDesc.attrs) {
    const p = plain(value);
    if (!p) return undefined;
    attrs[name] = p;
  }
  return { attrs, opset: opsetOf(node) };
}
