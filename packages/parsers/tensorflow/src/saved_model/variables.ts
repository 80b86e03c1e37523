// Binds a SavedModel's variables to checkpoint tensors. The saver's restore graph says which
// checkpoint key each variable holds: `AssignVariableOp(handle, RestoreV2(prefix, tensor_names,
// ...):i)` (TF2, inlined from the `__inference__traced_restore` function) or `Assign(variable,
// RestoreV2:i)` (TF1). Variables the outputs read become constants, their reads identities.
import type { HostTensor } from '@tsge/metadef';
import { tfDtypeOrUndefined } from '../import/dtype.js';
import type { TensorRef, TfNode } from '../import/tf-node.js';
import { TfProblem } from '../internal/problem.js';
import type { ConverterTable, OpConverter } from '../ops/registry.js';
import type { TensorBundle } from './bundle.js';

const VARIABLE_OPS = new Set(['VarHandleOp', 'VariableV2', 'Variable']);
const ASSIGN_OPS = new Set(['AssignVariableOp', 'Assign']);
const READ_OPS = new Set(['ReadVariableOp']);
const textDecoder = new TextDecoder();

/** Names of the nodes that the `outputs` read, transitively. */
export function reachable(nodes: readonly TfNode[], outputs: readonly TensorRef[]): Set<string> {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const seen = new Set<string>();
  const stack = outputs.map((r) => r.node);
  while (stack.length) {
    const name = stack.pop() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const r of byName.get(name)?.inputs ?? []) if (!seen.has(r.node)) stack.push(r.node);
  }
  return seen;
}

/** Checkpoint key by variable node name, from the restore graph's assignments. */
export function checkpointKeys(nodes: readonly TfNode[]): Map<string, string> {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const follow = (ref: TensorRef | undefined): { node: TfNode; index: number } | undefined => {
    let current = ref;
    for (let hops = 0; current && hops < 64; hops++) {
      const node = byName.get(current.node);
      if (!node) return undefined;
      if (node.op !== 'Identity') return { node, index: current.index };
      current = node.inputs[0];
    }
    return undefined;
  };
  const keys = new Map<string, string>();
  for (const n of nodes) {
    if (!ASSIGN_OPS.has(n.op)) continue;
    const target = follow(n.inputs[0]);
    const value = follow(n.inputs[1]);
    if (!target || !value || !VARIABLE_OPS.has(target.node.op) || value.node.op !== 'RestoreV2') continue;
    const names = follow(value.node.inputs[1]);
    const list = names?.node.op === 'Const' ? names.node.attr.value?.tensor?.stringVal : undefined;
    const key = list?.[value.index];
    if (key) keys.set(target.node.name, textDecoder.decode(key));
  }
  return keys;
}

/**
 * Reads the checkpoint tensor of every variable in `needed`, turns those variables into `Const`
 * nodes (their values in the returned map) and every variable read into `Identity`. A variable
 * with no value stays, and `unresolved` converts it into a coded problem naming it.
 */
export async function bindVariables(
  nodes: readonly TfNode[],
  needed: ReadonlySet<string>,
  openBundle: () => Promise<TensorBundle>,
): Promise<{ weights: Map<string, HostTensor>; unresolved: ConverterTable }> {
  const weights = new Map<string, HostTensor>();
  const reasons = new Map<string, string>();
  const variables = nodes.filter((n) => VARIABLE_OPS.has(n.op) && needed.has(n.name));
  if (variables.length) {
    const keys = checkpointKeys(nodes);
    const bundle = await openBundle();
    const stored = new Set(bundle.keys);
    for (const v of variables) {
      const shared = v.attr.shared_name?.s ? textDecoder.decode(v.attr.shared_name.s) : '';
      const key = keys.get(v.name) ?? [shared, v.name].find((k) => k && stored.has(k));
      if (key === undefined) {
        reasons.set(v.name, 'no restore assignment names its checkpoint key, and no checkpoint key matches its name');
        continue;
      }
      const tensor = await bundle.read(key);
      const declared = tfDtypeOrUndefined(v.attr.dtype?.type);
      if (declared && declared !== tensor.type) {
        reasons.set(v.name, `checkpoint tensor ${key} has dtype ${tensor.type}; the variable is ${declared}`);
        continue;
      }
      weights.set(v.name, tensor);
      v.op = 'Const';
    }
  }
  for (const n of nodes) if (READ_OPS.has(n.op) && needed.has(n.name)) n.op = 'Identity';
  const unresolvedVariable: OpConverter = (ctx) => {
    throw new TfProblem('TSGE-E3121', {
      node: ctx.node.name,
      reason: reasons.get(ctx.node.name) ?? 'it is not restored from the checkpoint',
    });
  };
  const unresolved: Record<string, OpConverter> = {};
  for (const op of VARIABLE_OPS) unresolved[op] = unresolvedVariable;
  return { weights, unresolved };
}
