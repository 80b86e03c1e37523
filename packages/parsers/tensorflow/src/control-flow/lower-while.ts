// TF1 `tf.while_loop` as lowered into a GraphDef: a frame of `Enter` nodes (one per loop value, plus
// `is_constant` ones for invariants), `Merge(Enter, NextIteration)` per loop value, the condition
// computed from the Merges into `LoopCond`, `Switch(Merge, LoopCond)` whose output 1 feeds the body
// and output 0 the `Exit`. Each outermost frame becomes one `_TfWhile` node whose spec holds the body
// (converted later into a Loop subgraph); Exits become Identities of its outputs. ONNX's Loop tests
// its condition after each iteration, TF before: the condition nodes are copied outside the loop
// (on the initial values) and into the body (on the next values). Inner frames stay in the body and
// are lowered when the body is imported.
import { TfAttrs } from '../import/attrs.js';
import { LIMITS } from '../internal/problem.js';
import type { TensorRef, TfNode } from '../import/tf-node.js';

export const WHILE_OP = '_TfWhile';

export interface WhileSpec {
  readonly frame: string;
  /** Body nodes (condition, body and the condition again on the next values), captures read by placeholder name. */
  readonly nodes: TfNode[];
  /** Body outputs: the next condition, then each loop value's next value. */
  readonly outputs: TensorRef[];
  /** Placeholder names of the loop values in the body, in `_TfWhile` input order after the condition. */
  readonly carriedNames: string[];
  /** Placeholder names of the outer values the body reads, in `_TfWhile` input order after the loop values. */
  readonly captureNames: string[];
}

/** A frame that could not be lowered, and why. */
export interface WhileProblem {
  readonly frame: string;
  readonly node: string;
  readonly reason: string;
}

const ENTER = new Set(['Enter', 'RefEnter']);
const MERGE = new Set(['Merge', 'RefMerge']);
const SWITCH = new Set(['Switch', 'RefSwitch']);
const EXIT = new Set(['Exit', 'RefExit']);
const NEXT = new Set(['NextIteration', 'RefNextIteration']);
const key = (r: TensorRef) => `${r.node}\u0000${r.index}`;

class Invalid extends Error {
  constructor(
    readonly node: string,
    reason: string,
  ) {
    super(reason);
  }
}

/** Rewrites every outermost while frame of `list` into a `_TfWhile` node; specs go to `specs`, failures to `problems`. */
export function lowerWhiles(list: readonly TfNode[], specs: Map<string, WhileSpec>, problems: WhileProblem[]): TfNode[] {
  const frames = new Map<string, TfNode[]>();
  for (const n of list) {
    if (!ENTER.has(n.op)) continue;
    const frame = new TfAttrs(n).string('frame_name', '');
    const enters = frames.get(frame);
    if (enters) enters.push(n);
    else frames.set(frame, [n]);
  }
  if (!frames.size) return [...list];
  const byName = new Map(list.map((n) => [n.name, n]));
  const consumers = new Map<string, TfNode[]>();
  for (const n of list)
    for (const from of new Set([...n.inputs.map((r) => r.node), ...n.control])) {
      const c = consumers.get(from);
      if (c) c.push(n);
      else consumers.set(from, [n]);
    }
  const structures = new Map<string, Frame | Invalid>();
  // a node is in at most as many frames as loops nest (bounded by the subgraph depth limit): more
  // membership than that is refused rather than walked (quadratic on deep nests)
  const budget = { left: (LIMITS.functionDepth + 1) * Math.max(1, list.length) };
  for (const [frame, enters] of frames) {
    try {
      structures.set(frame, frameOf(frame, enters, byName, consumers, budget));
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      structures.set(frame, error);
    }
  }
  // outermost: no other frame holds its Enters (each frame holds its own)
  const holders = new Map<string, number>();
  for (const s of structures.values()) if (!(s instanceof Invalid)) for (const m of s.members) holders.set(m, (holders.get(m) ?? 0) + 1);
  const inOther = (frame: string, enters: readonly TfNode[]) => {
    const own = structures.get(frame) instanceof Invalid ? 0 : 1;
    return enters.some((e) => (holders.get(e.name) ?? 0) > own);
  };
  const removed = new Set<string>();
  const added: TfNode[] = [];
  for (const [frame, s] of structures) {
    if (inOther(frame, frames.get(frame) as TfNode[])) continue;
    if (s instanceof Invalid) {
      problems.push({ frame, node: s.node, reason: s.message });
      continue;
    }
    try {
      added.push(...lowerFrame(s, byName, specs));
      for (const m of s.members) removed.add(m);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      problems.push({ frame, node: error.node, reason: error.message });
    }
  }
  return [...list.filter((n) => !removed.has(n.name)), ...added];
}

interface Frame {
  readonly frame: string;
  readonly loopCond: TfNode;
  /** Per loop value: its Enter, Merge, NextIteration, Switch and Exit (if any). */
  readonly carried: { enter: TfNode; merge: TfNode; next: TfNode; switch?: TfNode; exit?: TfNode }[];
  /** Enters not joined by a Merge: loop invariants. */
  readonly invariants: TfNode[];
  /** Every node of the frame, Enters and Exits included. */
  readonly members: Set<string>;
  /** Members the condition needs, in list order. */
  readonly condNodes: TfNode[];
}

function frameOf(
  frame: string,
  enters: readonly TfNode[],
  byName: ReadonlyMap<string, TfNode>,
  consumers: ReadonlyMap<string, TfNode[]>,
  budget: { left: number },
): Frame {
  const carried: Frame['carried'] = [];
  const invariants: TfNode[] = [];
  let loopCond: TfNode | undefined;
  for (const enter of enters) {
    if (enter.inputs.length !== 1) throw new Invalid(enter.name, 'Enter needs one data input');
    const merge = (consumers.get(enter.name) ?? []).find((c) => MERGE.has(c.op));
    if (!merge || new TfAttrs(enter).bool('is_constant', false)) {
      invariants.push(enter);
      continue;
    }
    if (merge.inputs.length !== 2) throw new Invalid(merge.name, 'a loop Merge needs two inputs (Enter, NextIteration)');
    const other = merge.inputs.find((r) => r.node !== enter.name);
    const next = other && byName.get(other.node);
    if (!next || !NEXT.has(next.op) || next.inputs.length !== 1)
      throw new Invalid(merge.name, 'a loop Merge joins an Enter and a NextIteration');
    const switches = (consumers.get(merge.name) ?? []).filter((c) => SWITCH.has(c.op) && c.inputs[0]?.node === merge.name);
    if (switches.length > 1) throw new Invalid(merge.name, 'a loop value has more than one Switch');
    const sw = switches[0];
    if (sw) {
      const pred = byName.get(sw.inputs[1]?.node ?? '');
      if (pred?.op !== 'LoopCond') throw new Invalid(sw.name, 'the loop Switch does not test a LoopCond');
      if (loopCond && loopCond !== pred) throw new Invalid(sw.name, 'the frame has two LoopConds');
      loopCond = pred as TfNode;
    }
    const exit = sw && (consumers.get(sw.name) ?? []).find((c) => EXIT.has(c.op));
    carried.push({ enter, merge, next, ...(sw ? { switch: sw } : {}), ...(exit ? { exit } : {}) });
  }
  if (!loopCond) throw new Invalid(enters[0]?.name ?? frame, 'no LoopCond tests the loop values');
  if (loopCond.inputs.length !== 1) throw new Invalid(loopCond.name, 'LoopCond needs one input');
  if (carried.some((c) => !c.switch)) throw new Invalid(carried.find((c) => !c.switch)?.merge.name ?? frame, 'a loop value has no Switch');
  const exits = new Set(carried.flatMap((c) => (c.exit ? [c.exit.name] : [])));
  // members: everything reachable from the Enters, stopping at this frame's Exits
  const members = new Set<string>();
  const queue = [...enters];
  for (const e of enters) members.add(e.name);
  while (queue.length) {
    const n = queue.pop() as TfNode;
    if (exits.has(n.name)) continue;
    for (const c of consumers.get(n.name) ?? []) {
      if (members.has(c.name)) continue;
      if (--budget.left < 0) throw new Invalid(c.name, `while frames nest deeper than ${LIMITS.functionDepth}`);
      members.add(c.name);
      queue.push(c);
    }
  }
  // the condition: members LoopCond needs, back to the Merges
  const merges = new Set(carried.map((c) => c.merge.name));
  const invariantNames = new Set(invariants.map((e) => e.name));
  const cond = new Set<string>();
  const stack = [loopCond.inputs[0]?.node as string];
  while (stack.length) {
    const name = stack.pop() as string;
    const n = byName.get(name);
    if (!n || cond.has(name) || !members.has(name) || merges.has(name) || invariantNames.has(name)) continue;
    if (ENTER.has(n.op) || SWITCH.has(n.op) || NEXT.has(n.op) || EXIT.has(n.op) || n.op === 'LoopCond')
      throw new Invalid(n.name, `the loop condition reads a ${n.op} of the frame`);
    cond.add(name);
    stack.push(...n.inputs.map((r) => r.node), ...n.control);
  }
  const condNodes = [...cond].map((name) => byName.get(name) as TfNode);
  return { frame, loopCond, carried, invariants, members, condNodes };
}

/** The nodes that replace frame `f`: the condition on the initial values, the `_TfWhile`, Identities for the Exits. */
function lowerFrame(f: Frame, byName: ReadonlyMap<string, TfNode>, specs: Map<string, WhileSpec>): TfNode[] {
  const base = f.loopCond.name.includes('/') ? f.loopCond.name.slice(0, f.loopCond.name.lastIndexOf('/')) : f.loopCond.name;
  const whileName = `${base}/${WHILE_OP}`;
  const control = new Set([
    f.loopCond.name,
    ...f.invariants.map((e) => e.name),
    ...f.carried.flatMap((c) => [c.enter.name, c.merge.name, c.next.name, c.switch?.name ?? '', c.exit?.name ?? '']),
  ]);
  const body = [...f.members].filter((name) => !control.has(name)).map((name) => byName.get(name) as TfNode);
  const carriedOf = new Map<string, number>();
  f.carried.forEach((c, k) => {
    carriedOf.set(key({ node: c.merge.name, index: 0 }), k);
    carriedOf.set(key({ node: c.switch?.name ?? '', index: 1 }), k);
  });
  const invariantOf = new Map(f.invariants.map((e) => [e.name, e]));
  // outer values the body reads become captures (an invariant Enter reads its input)
  const captures: TensorRef[] = [];
  const captureIndex = new Map<string, number>();
  const captureName = (j: number) => `${whileName}/capture_${j}`;
  const carriedName = (k: number) => `${whileName}/carried_${k}`;
  const bodyRef = (r: TensorRef, reader: string): TensorRef => {
    const k = carriedOf.get(key(r));
    if (k !== undefined) return { node: carriedName(k), index: 0 };
    const producer = byName.get(r.node);
    if (producer && f.members.has(r.node) && !invariantOf.has(r.node)) {
      if (control.has(r.node)) throw new Invalid(reader, `reads ${r.node}:${r.index} (${producer.op}) of the loop frame`);
      return r;
    }
    const outer = invariantOf.get(r.node)?.inputs[0] ?? r;
    let j = captureIndex.get(key(outer));
    if (j === undefined) {
      j = captures.length;
      captures.push(outer);
      captureIndex.set(key(outer), j);
    }
    return { node: captureName(j), index: 0 };
  };
  const memberControl = (n: TfNode) => n.control.filter((c) => f.members.has(c) && !control.has(c));
  const bodyNodes: TfNode[] = body.map((n) => ({ ...n, inputs: n.inputs.map((r) => bodyRef(r, n.name)), control: memberControl(n) }));
  // the condition again, on the next values
  const condNames = new Set(f.condNodes.map((n) => n.name));
  const nextName = (name: string) => `${name}/_next_iteration`;
  const nextOf = new Map(f.carried.map((c) => [c.merge.name, bodyRef(c.next.inputs[0] as TensorRef, c.next.name)]));
  const condRef = (
    r: TensorRef,
    reader: string,
    clone: (name: string) => string,
    mergeValue: ReadonlyMap<string, TensorRef>,
    map: (r: TensorRef, reader: string) => TensorRef,
  ) => {
    if (r.index === 0 && mergeValue.has(r.node)) return mergeValue.get(r.node) as TensorRef;
    if (condNames.has(r.node)) return { node: clone(r.node), index: r.index };
    return map(r, reader);
  };
  for (const n of f.condNodes)
    bodyNodes.push({
      ...n,
      name: nextName(n.name),
      weightOf: n.weightOf ?? n.name,
      inputs: n.inputs.map((r) => condRef(r, n.name, nextName, nextOf, bodyRef)),
      control: n.control.filter((c) => condNames.has(c)).map(nextName),
    });
  const condInput = f.loopCond.inputs[0] as TensorRef;
  const outputs = [
    condRef(condInput, f.loopCond.name, nextName, nextOf, bodyRef),
    ...f.carried.map((c) => nextOf.get(c.merge.name) as TensorRef),
  ];
  // the condition on the initial values, outside the loop
  const initName = (name: string) => `${name}/_initial`;
  const initialOf = new Map(f.carried.map((c) => [c.merge.name, c.enter.inputs[0] as TensorRef]));
  const outerRef = (r: TensorRef, reader: string): TensorRef => {
    const invariant = invariantOf.get(r.node);
    if (invariant) return invariant.inputs[0] as TensorRef;
    if (f.members.has(r.node)) throw new Invalid(reader, `the loop condition reads ${r.node}, which the loop body computes`);
    return r;
  };
  const initial: TfNode[] = f.condNodes.map((n) => ({
    ...n,
    name: initName(n.name),
    weightOf: n.weightOf ?? n.name,
    inputs: n.inputs.map((r) => condRef(r, n.name, initName, initialOf, outerRef)),
    control: n.control.filter((c) => !f.members.has(c) || condNames.has(c)).map((c) => (condNames.has(c) ? initName(c) : c)),
  }));
  const initialCond = condRef(condInput, f.loopCond.name, initName, initialOf, outerRef);
  specs.set(whileName, {
    frame: f.frame,
    nodes: bodyNodes,
    outputs,
    carriedNames: f.carried.map((_, k) => carriedName(k)),
    captureNames: captures.map((_, j) => captureName(j)),
  });
  const loop: TfNode = {
    name: whileName,
    op: WHILE_OP,
    inputs: [initialCond, ...f.carried.map((c) => c.enter.inputs[0] as TensorRef), ...captures],
    control: [],
    attr: {},
  };
  const exits: TfNode[] = f.carried.flatMap((c, k) =>
    c.exit ? [{ name: c.exit.name, op: 'Identity', inputs: [{ node: whileName, index: k }], control: [], attr: c.exit.attr }] : [],
  );
  return [...initial, loop, ...exits];
}
