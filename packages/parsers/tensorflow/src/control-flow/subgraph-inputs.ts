// The inputs of a control-flow subgraph (If branch, Loop body) as TF nodes the importer reads:
// a Placeholder per value that carries what the importer knows of the outer value (dtype, rank,
// sequence), or a Const when the outer value is a constant and may be copied in (so converters
// that need a constant, such as shapes and axes, still see one).
import type { Diagnostic, Graph, HostTensor, Value } from '@tsge/metadef';
import type { ConvertContext, ValueInfo } from '../import/context.js';
import type { TensorRef, TfNode } from '../import/tf-node.js';

export interface SubgraphInputs {
  readonly nodes: TfNode[];
  readonly constants: Map<string, HostTensor>;
  readonly infos: Map<string, ValueInfo>;
}

/** Imports a subgraph: its nodes, the outputs it returns, constants and input infos by node name, a graph name. */
export type SubgraphImporter = (
  nodes: TfNode[],
  outputs: TensorRef[],
  inputs: SubgraphInputs,
  graphName: string,
) => { graph: Graph | undefined; diagnostics: Diagnostic[] };

/** One subgraph input per `(name, value)`; `copyConstants: false` for values that change (loop values). */
export function subgraphInputs(
  ctx: ConvertContext,
  entries: readonly { readonly name: string; readonly value: Value }[],
  copyConstants: boolean,
): SubgraphInputs {
  const out: SubgraphInputs = { nodes: [], constants: new Map(), infos: new Map() };
  for (const { name, value } of entries) {
    const { constant, emptySequence, ...info } = ctx.info(value);
    if (constant && copyConstants) {
      out.constants.set(name, constant);
      out.nodes.push({ name, op: 'Const', inputs: [], control: [], attr: {} });
      continue;
    }
    const rank = ctx.rankOf(value);
    // a loop value's sequence grows; an invariant one stays as it is
    out.infos.set(name, {
      ...info,
      ...(emptySequence && copyConstants ? { emptySequence } : {}),
      ...(rank !== undefined ? { rank } : {}),
      ...(constant ? { dtype: constant.type } : {}),
    });
    out.nodes.push({ name, op: 'Placeholder', inputs: [], control: [], attr: {} });
  }
  return out;
}
