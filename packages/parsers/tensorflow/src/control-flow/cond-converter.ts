// Converts a `_TfCond` (see lower-cond.ts) into an If whose then/else subgraphs are the branches,
// imported like any TF graph. Outer values the branches read are the If's implicit inputs: in a
// branch each is a Data node wired to the If input at `_parent_node_index` (as the ONNX parser
// builds captures); constant ones are copied into the branch, so converters that need a constant
// (shapes, axes) still see one.
import {
  ATTR_INDEX,
  ATTR_PARENT_NODE_INDEX,
  DATA,
  type DataType,
  type Diagnostic,
  type Graph,
  type HostTensor,
  attr,
  formatDiagnostic,
} from '@tsge/metadef';
import type { TensorRef, TfNode } from '../import/tf-node.js';
import { TfProblem } from '../internal/problem.js';
import type { OpConverter } from '../ops/registry.js';
import type { CondSpec } from './lower-cond.js';

const ATTR_IMPLICIT_INPUTS = '_implicit_inputs';
const ATTR_IMPLICIT_INPUT = '_implicit_input';

// tsge dtype → TF DataType enum (types.proto), for the branches' capture Placeholders
const TF_ENUM: Partial<Record<DataType, number>> = {
  float32: 1,
  float64: 2,
  int32: 3,
  uint8: 4,
  int16: 5,
  int8: 6,
  string: 7,
  int64: 9,
  bool: 10,
  bfloat16: 14,
  uint16: 17,
  float16: 19,
  uint32: 22,
  uint64: 23,
};

/** Imports a branch: its nodes, the graph outputs it returns, constants by node name, a graph name. */
export type BranchImporter = (
  nodes: TfNode[],
  outputs: TensorRef[],
  constants: ReadonlyMap<string, HostTensor>,
  graphName: string,
) => { graph: Graph | undefined; diagnostics: Diagnostic[] };

export function condConverter(specs: ReadonlyMap<string, CondSpec>, importBranch: BranchImporter): OpConverter {
  return (ctx) => {
    const spec = specs.get(ctx.node.name);
    if (!spec) throw ctx.problem('no cond spec (internal)');
    const constants = new Map<string, HostTensor>();
    const placeholders: TfNode[] = spec.captureNames.map((name, k) => {
      const constant = ctx.constantOf(1 + k);
      if (constant) {
        constants.set(name, constant);
        return { name, op: 'Const', inputs: [], control: [], attr: {} };
      }
      const value = ctx.input(1 + k);
      const dtype = ctx.dtypeOf(value);
      const rank = ctx.rankOf(value);
      return {
        name,
        op: 'Placeholder',
        inputs: [],
        control: [],
        attr: {
          dtype: { type: (dtype && TF_ENUM[dtype]) ?? 1 },
          ...(rank !== undefined ? { shape: { shape: { dim: Array.from({ length: rank }, () => ({ size: -1 })) } } } : {}),
        },
      };
    });
    const branches: Graph[] = [];
    for (const which of ['then', 'else'] as const) {
      const branch = which === 'then' ? spec.whenTrue : spec.whenFalse;
      const name = ctx.builder.unique(`${ctx.node.name}/${which}_branch`);
      const { graph, diagnostics } = importBranch([...placeholders, ...branch.nodes], branch.outputs, constants, name);
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
    const inputs = Array.from({ length: ctx.inputCount }, (_, i) => ctx.input(i));
    const outputs = ctx.op(
      'If',
      [ctx.cast(inputs[0] as NonNullable<(typeof inputs)[0]>, 'bool'), ...inputs.slice(1)],
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
