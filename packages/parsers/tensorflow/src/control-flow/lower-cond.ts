// TF1 `tf.cond` as lowered into a GraphDef: `Switch(x, pred)` nodes route each value into the
// false (output 0) or true (output 1) branch, the branch nodes read them, and `Merge` nodes join
// one value from each branch. Each such group (one predicate) becomes one `_TfCond` node whose
// spec holds both branches' nodes, converted later into an If with two subgraphs; the Merges
// become Identities of its outputs. Innermost conds go first, so an outer branch holds inner
// conds as single nodes. While-loop Switches (predicate from LoopCond) are left alone.
import type { TensorRef, TfNode } from '../import/tf-node.js';

export const COND_OP = '_TfCond';

export interface CondBranch {
  readonly nodes: TfNode[];
  readonly outputs: TensorRef[];
}

export interface CondSpec {
  readonly whenTrue: CondBranch;
  readonly whenFalse: CondBranch;
  /** Placeholder names the branches read outer values through, in `_TfCond` input order after the predicate. */
  readonly captureNames: string[];
}

const SWITCH = new Set(['Switch', 'RefSwitch']);
const MERGE = new Set(['Merge', 'RefMerge']);
const key = (r: TensorRef) => `${r.node}\u0000${r.index}`;
type Side = 'then' | 'else';

/** Rewrites every TF1 cond of `list` it can into `_TfCond` nodes; the specs are added to `specs`. */
export function lowerConds(list: readonly TfNode[], specs: Map<string, CondSpec>): TfNode[] {
  let nodes = [...list];
  const failed = new Set<string>();
  for (;;) {
    const byName = new Map(nodes.map((n) => [n.name, n]));
    const groups = new Map<string, TfNode[]>();
    for (const n of nodes) {
      if (!SWITCH.has(n.op) || n.inputs.length !== 2) continue;
      const pred = n.inputs[1] as TensorRef;
      if (byName.get(pred.node)?.op === 'LoopCond' || failed.has(key(pred))) continue;
      const group = groups.get(key(pred));
      if (group) group.push(n);
      else groups.set(key(pred), [n]);
    }
    let lowered = false;
    for (const [predKey, switches] of groups) {
      const result = lowerGroup(nodes, byName, switches, specs);
      if (result === 'nested') continue;
      if (result === 'invalid') {
        failed.add(predKey);
        continue;
      }
      nodes = result;
      lowered = true;
      break;
    }
    if (!lowered) return nodes;
  }
}

function lowerGroup(
  nodes: readonly TfNode[],
  byName: ReadonlyMap<string, TfNode>,
  switches: readonly TfNode[],
  specs: Map<string, CondSpec>,
): TfNode[] | 'nested' | 'invalid' {
  const switchSet = new Set(switches.map((s) => s.name));
  const consumers = new Map<string, { node: TfNode; control: boolean }[]>();
  for (const n of nodes) {
    for (const r of n.inputs) {
      const list = consumers.get(r.node) ?? [];
      list.push({ node: n, control: false });
      consumers.set(r.node, list);
    }
    for (const c of n.control) {
      const list = consumers.get(c) ?? [];
      list.push({ node: n, control: true });
      consumers.set(c, list);
    }
  }
  // taint: which branch each node's outputs belong to
  const side = new Map<string, Side>();
  const merges = new Map<string, TfNode>();
  const queue: TfNode[] = [];
  const sideOfRef = (r: TensorRef): Side | undefined => (switchSet.has(r.node) ? (r.index === 1 ? 'then' : 'else') : side.get(r.node));
  const reach = (from: string) => {
    for (const { node: c, control } of consumers.get(from) ?? []) {
      if (switchSet.has(c.name) || side.has(c.name)) continue;
      if (MERGE.has(c.op)) {
        if (!control) merges.set(c.name, c);
        continue;
      }
      // control edges carry a branch only into nodes with no data inputs (the branch's constants)
      if (control && c.inputs.length > 0) continue;
      const sides = new Set([...c.inputs, ...c.control.map((n) => ({ node: n, index: 0 }))].map(sideOfRef).filter((s) => s !== undefined));
      if (sides.size !== 1) return false;
      side.set(c.name, [...sides][0] as Side);
      queue.push(c);
    }
    return true;
  };
  for (const s of switches) if (!reach(s.name)) return 'invalid';
  while (queue.length) if (!reach((queue.shift() as TfNode).name)) return 'invalid';
  const members = [...side.keys()].map((n) => byName.get(n) as TfNode);
  if (members.some((m) => SWITCH.has(m.op))) return 'nested';
  // every Merge reached joins one value of each branch
  const outputs: { merge: TfNode; whenTrue: TensorRef; whenFalse: TensorRef }[] = [];
  for (const m of merges.values()) {
    if (m.inputs.length !== 2) return 'invalid';
    const [a, b] = m.inputs as [TensorRef, TensorRef];
    const sa = sideOfRef(a);
    const sb = sideOfRef(b);
    if (!sa || !sb || sa === sb) return sa && sb ? 'nested' : 'invalid';
    outputs.push({ merge: m, whenTrue: sa === 'then' ? a : b, whenFalse: sa === 'then' ? b : a });
  }
  if (!outputs.length) return 'invalid';
  // outer values each branch reads become captures (a Switch's output is its data input)
  const captures: TensorRef[] = [];
  const captureIndex = new Map<string, number>();
  const first = outputs[0]?.merge.name as string;
  const condName = `${first.includes('/') ? first.slice(0, first.lastIndexOf('/')) : first}/${COND_OP}`;
  const captureName = (i: number) => `${condName}/capture_${i}`;
  const mapRef = (r: TensorRef): TensorRef => {
    const sw = switchSet.has(r.node) ? byName.get(r.node) : undefined;
    if (!sw && side.has(r.node)) return r;
    const outer = sw ? (sw.inputs[0] as TensorRef) : r;
    let i = captureIndex.get(key(outer));
    if (i === undefined) {
      i = captures.length;
      captures.push(outer);
      captureIndex.set(key(outer), i);
    }
    return { node: captureName(i), index: 0 };
  };
  const branch = (which: Side): CondBranch => ({
    nodes: members
      .filter((m) => side.get(m.name) === which)
      .map((m) => ({ ...m, inputs: m.inputs.map(mapRef), control: m.control.filter((c) => side.get(c) === which) })),
    outputs: outputs.map((o) => mapRef(which === 'then' ? o.whenTrue : o.whenFalse)),
  });
  const spec: CondSpec = { whenTrue: branch('then'), whenFalse: branch('else'), captureNames: captures.map((_, i) => captureName(i)) };
  specs.set(condName, spec);
  const pred = switches[0]?.inputs[1] as TensorRef;
  const cond: TfNode = { name: condName, op: COND_OP, inputs: [pred, ...captures], control: [], attr: {} };
  const removed = new Set([...switchSet, ...side.keys(), ...merges.keys()]);
  const rest = nodes.filter((n) => !removed.has(n.name));
  const joins = outputs.map(
    (o, k): TfNode => ({ name: o.merge.name, op: 'Identity', inputs: [{ node: condName, index: k }], control: [], attr: o.merge.attr }),
  );
  return [...rest, cond, ...joins];
}
