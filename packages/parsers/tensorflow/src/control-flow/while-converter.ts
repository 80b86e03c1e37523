// Converts a `_TfWhile` (see lower-while.ts) into an ONNX-style Loop: no trip count, the condition
// on the initial values as `cond`, the loop values as loop-carried values, and a body returning
// (next condition, next values). Outer values the body reads are the Loop's implicit inputs, wired
// as the cond converter wires an If's.
import {
  ATTR_INDEX,
  ATTR_PARENT_NODE_INDEX,
  DATA,
  type DataType,
  type OpDesc,
  attr,
  createOpDesc,
  createTensorDesc,
  formatDiagnostic,
} from '@tsge/metadef';
import { TfProblem } from '../internal/problem.js';
import type { OpConverter } from '../ops/registry.js';
import { ATTR_IMPLICIT_INPUT, ATTR_IMPLICIT_INPUTS } from './cond-converter.js';
import type { WhileSpec } from './lower-while.js';
import { type SubgraphImporter, subgraphInputs } from './subgraph-inputs.js';

export function whileConverter(specs: ReadonlyMap<string, WhileSpec>, importBody: SubgraphImporter): OpConverter {
  return (ctx) => {
    const spec = specs.get(ctx.node.name);
    if (!spec) throw ctx.problem('no while spec (internal)');
    const n = spec.carriedNames.length;
    const carried = subgraphInputs(
      ctx,
      spec.carriedNames.map((name, k) => ({ name, value: ctx.input(1 + k) })),
      false,
    );
    const captured = subgraphInputs(
      ctx,
      spec.captureNames.map((name, j) => ({ name, value: ctx.input(1 + n + j) })),
      true,
    );
    const inputs = {
      nodes: [...carried.nodes, ...captured.nodes],
      constants: captured.constants,
      infos: new Map([...carried.infos, ...captured.infos]),
    };
    const name = ctx.builder.unique(`${ctx.node.name}/body`);
    const { graph, diagnostics } = importBody([...inputs.nodes, ...spec.nodes], spec.outputs, inputs, name);
    const error = diagnostics.find((d) => d.severity === 'error');
    if (!graph || error)
      throw new TfProblem('TSGE-E3123', { frame: spec.frame, reason: `body: ${error ? formatDiagnostic(error) : 'no graph'}` });
    // body inputs: (iteration, condition, loop values...) formal, each a Data node even if unused,
    // then the captures it reads (Data indices are contiguous; the Loop input is the parent index)
    const data = new Map(graph.nodes.filter((d) => d.type === DATA).map((d) => [d.opDesc.outputNames[0] ?? '', d]));
    for (const d of data.keys())
      if (!spec.carriedNames.includes(d) && !spec.captureNames.includes(d))
        throw new TfProblem('TSGE-E3123', { frame: spec.frame, reason: `body input ${d} is neither a loop value nor a capture` });
    const formal: { name: string; dtype: DataType; sequence: boolean; scalar?: boolean }[] = [
      { name: `${ctx.node.name}/iteration`, dtype: 'int64', sequence: false, scalar: true },
      { name: `${ctx.node.name}/condition`, dtype: 'bool', sequence: false, scalar: true },
      ...spec.carriedNames.map((name) => {
        const info = carried.infos.get(name);
        return { name, dtype: info?.dtype ?? 'float32', sequence: info?.sequence === true };
      }),
    ];
    formal.forEach(({ name, dtype, sequence, scalar }, i) => {
      const node = data.get(name) ?? graph.addNode(dataDesc(name, dtype, sequence, scalar === true));
      node.opDesc.attrs.set(ATTR_INDEX, attr.int(i));
      node.opDesc.attrs.set(ATTR_PARENT_NODE_INDEX, attr.int(i));
    });
    let position = formal.length;
    spec.captureNames.forEach((name, j) => {
      const node = data.get(name);
      if (!node) return;
      node.opDesc.attrs.set(ATTR_INDEX, attr.int(position++));
      node.opDesc.attrs.set(ATTR_PARENT_NODE_INDEX, attr.int(2 + n + j));
      node.opDesc.attrs.set(ATTR_IMPLICIT_INPUT, attr.bool(true));
    });
    const values = Array.from({ length: ctx.inputCount - 1 }, (_, i) => ctx.input(1 + i));
    const outputs = ctx.op(
      'Loop',
      [undefined, ctx.cast(ctx.input(0), 'bool'), ...values],
      { body: attr.graph(graph.name), [ATTR_IMPLICIT_INPUTS]: attr.int(spec.captureNames.length) },
      n,
    );
    const node = (outputs[0] as (typeof outputs)[0]).node;
    node.opDesc.subgraphNames.push(graph.name);
    ctx.builder.graph.addSubgraph(graph, node);
    // a loop value keeps its dtype and kind (TF's shape invariants keep its rank too)
    return outputs.map((v, k) => {
      const info = carried.infos.get(spec.carriedNames[k] as string);
      return info ? ctx.note(v, info) : v;
    });
  };
}

/** A body input the body does not read (the verifier wants every formal input as a Data node). */
function dataDesc(name: string, dtype: DataType, sequence: boolean, scalar: boolean): OpDesc {
  const desc = createTensorDesc(dtype, scalar ? [] : [-2]);
  if (sequence) desc.valueKind = 'sequence';
  return createOpDesc({ name, type: DATA, inputDescs: [desc], outputDescs: [{ ...desc }], outputNames: [name] });
}
