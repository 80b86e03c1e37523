// Converts a `_TfCond` (see lower-cond.ts) into an If whose then/else subgraphs are the branches,
// imported like any TF graph. Outer values the branches read are the If's implicit inputs: in a
// branch each is a Data node wired to the If input at `_parent_node_index` (as the ONNX parser
// builds captures); constant ones are copied into the branch, so converters that need a constant
// (shapes, axes) still see one.
import { ATTR_INDEX, ATTR_PARENT_NODE_INDEX, DATA, type Graph, attr, formatDiagnostic } from '@tsge/metadef';
import { TfProblem } from '../internal/problem.js';
import type { OpConverter } from '../ops/registry.js';
import type { CondSpec } from './lower-cond.js';
import { type SubgraphImporter, subgraphInputs } from './subgraph-inputs.js';

export const ATTR_IMPLICIT_INPUTS = '_implicit_inputs';
export const ATTR_IMPLICIT_INPUT = '_implicit_input';

export function condConverter(specs: ReadonlyMap<string, CondSpec>, importBranch: SubgraphImporter): OpConverter {
  return (ctx) => {
    const spec = specs.get(ctx.node.name);
    if (!spec) throw ctx.problem('no cond spec (internal)');
    const inputs = subgraphInputs(
      ctx,
      spec.captureNames.map((name, k) => ({ name, value: ctx.input(1 + k) })),
      true,
    );
    const branches: Graph[] = [];
    for (const which of ['then', 'else'] as const) {
      const branch = which === 'then' ? spec.whenTrue : spec.whenFalse;
      const name = ctx.builder.unique(`${ctx.node.name}/${which}_branch`);
      const { graph, diagnostics } = importBranch([...inputs.nodes, ...branch.nodes], branch.outputs, inputs, name);
      const error = diagnostics.find((d) => d.severity === 'error');
      if (!graph || error)
        throw new TfProblem('TSGE-E3103', {
          node: ctx.node.name,
          op: 'cond (Switch/Merge)',
          reason: `${which} branch: ${error ? formatDiagnostic(error) : 'no graph'}`,
        });
      // a branch reads some of the captures: its Data indices count those, in capture order
      const reads = graph.nodes
        .filter((n) => n.type === DATA)
        .map((data) => ({ data, k: spec.captureNames.indexOf(data.opDesc.outputNames[0] ?? '') }))
        .sort((a, b) => a.k - b.k);
      reads.forEach(({ data, k }, position) => {
        if (k < 0) throw ctx.problem(`${which} branch has an input that is not a capture`);
        data.opDesc.attrs.set(ATTR_INDEX, attr.int(position));
        data.opDesc.attrs.set(ATTR_PARENT_NODE_INDEX, attr.int(1 + k));
        data.opDesc.attrs.set(ATTR_IMPLICIT_INPUT, attr.bool(true));
      });
      branches.push(graph);
    }
    const [thenGraph, elseGraph] = branches as [Graph, Graph];
    const values = Array.from({ length: ctx.inputCount }, (_, i) => ctx.input(i));
    const outputs = ctx.op(
      'If',
      [ctx.cast(ctx.input(0), 'bool'), ...values.slice(1)],
      {
        then_branch: attr.graph(thenGraph.name),
        else_branch: attr.graph(elseGraph.name),
        [ATTR_IMPLICIT_INPUTS]: attr.int(spec.captureNames.length),
      },
      spec.whenTrue.outputs.length,
    );
    const node = (outputs[0] as (typeof outputs)[0]).node;
    for (const g of branches) {
      node.opDesc.subgraphNames.push(g.name);
      ctx.builder.graph.addSubgraph(g, node);
    }
    return outputs;
  };
}
