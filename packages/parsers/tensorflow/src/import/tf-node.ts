import type { IAttrValue, INodeDef } from '../internal/proto.js';
import { TfProblem } from '../internal/problem.js';

/** A reference to one output of a node: `name` or `name:index` in GraphDef inputs. */
export interface TensorRef {
  readonly node: string;
  readonly index: number;
}

/** A NodeDef with its inputs split into data and control references. */
export interface TfNode {
  readonly name: string;
  op: string;
  inputs: TensorRef[];
  readonly control: string[];
  readonly attr: Readonly<Record<string, IAttrValue>>;
  /** A copy of a Const (a while condition's): its weight is the original's, by that name. */
  readonly weightOf?: string;
}

/** Parses `name`, `name:3` or `^name`. */
export function parseRef(text: string): { ref: TensorRef; control: boolean } {
  if (text.startsWith('^')) return { ref: { node: text.slice(1), index: -1 }, control: true };
  const colon = text.lastIndexOf(':');
  if (colon > 0 && /^\d+$/.test(text.slice(colon + 1)))
    return { ref: { node: text.slice(0, colon), index: Number(text.slice(colon + 1)) }, control: false };
  return { ref: { node: text, index: 0 }, control: false };
}

export function refName(ref: TensorRef): string {
  return ref.index === 0 ? ref.node : `${ref.node}:${ref.index}`;
}

export function toTfNode(def: INodeDef, position: number): TfNode {
  const name = def.name || `node_${position}`;
  const inputs: TensorRef[] = [];
  const control: string[] = [];
  for (const text of def.input ?? []) {
    const { ref, control: isControl } = parseRef(text);
    if (!ref.node) throw new TfProblem('TSGE-E3101', { format: 'GraphDef', reason: `node ${name} has an empty input name` });
    if (isControl) control.push(ref.node);
    else inputs.push(ref);
  }
  return { name, op: def.op ?? '', inputs, control, attr: (def.attr ?? {}) as Record<string, IAttrValue> };
}
