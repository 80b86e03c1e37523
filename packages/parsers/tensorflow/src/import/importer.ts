import {
  type DataType,
  type Diagnostic,
  type DiagnosticLocation,
  type Graph,
  type HostTensor,
  ONNX_DTYPE,
  type Shape,
  type Value,
  attr,
  diagnostic,
} from '@tsge/metadef';
import { condConverter } from '../control-flow/cond-converter.js';
import { COND_OP, type CondSpec, lowerConds } from '../control-flow/lower-cond.js';
import { WHILE_OP, type WhileProblem, type WhileSpec, lowerWhiles } from '../control-flow/lower-while.js';
import type { SubgraphImporter } from '../control-flow/subgraph-inputs.js';
import { whileConverter } from '../control-flow/while-converter.js';
import { converters } from '../ops/index.js';
import type { ConverterTable } from '../ops/registry.js';
import { LIMITS, TfProblem, problemToDiagnostic } from '../internal/problem.js';
import { NodeFactory } from './builder.js';
import { ConvertContext, LIST_BATCH_READERS, type ValueInfo } from './context.js';
import { BERNOULLI_OP, rewriteDropout } from './dropout.js';
import { isResourceOrVariant, tfDtype } from './dtype.js';
import { decodeTensor, shapeOf } from './tensor.js';
import { type TensorRef, type TfNode, parseRef } from './tf-node.js';

export interface ImportOptions {
  /** File name for diagnostics. */
  readonly file?: string;
  /** Format name for diagnostics ('GraphDef', 'TensorFlow.js graph model', ...). */
  readonly format: string;
  readonly graphName?: string;
  /** `--input_shape`: dims by Placeholder name. */
  readonly inputShapes?: ReadonlyMap<string, Shape>;
  /** `--out_nodes`: `name` or `name:index`; default: the outputs nothing consumes. */
  readonly outputNodes?: readonly string[];
  /** Named outputs (SavedModel signatures, tfjs signatures): graph output name → tensor. */
  readonly namedOutputs?: readonly { readonly name: string; readonly ref: TensorRef }[];
  /** Named inputs: Placeholder node → graph input name. */
  readonly inputNames?: ReadonlyMap<string, string>;
  /** Constants known by node name (TensorFlow.js weights, SavedModel variables). */
  readonly weights?: ReadonlyMap<string, HostTensor>;
  /** What is known of Placeholders by name (a control-flow subgraph's inputs: dtype, rank, sequence). */
  readonly placeholderInfos?: ReadonlyMap<string, ValueInfo>;
  /** How deep in If/Loop subgraphs these nodes are (0: the model's graph). */
  readonly subgraphDepth?: number;
  /** Converters for synthetic ops a front end writes (Keras recurrent layers). */
  readonly extraConverters?: ConverterTable;
}

export interface ImportResult {
  readonly graph: Graph | undefined;
  readonly diagnostics: Diagnostic[];
}

// Ops that produce nothing anyone reads as a graph output.
const NOT_OUTPUTS = new Set([
  'NoOp',
  'Const',
  'Assert',
  'SaveV2',
  'RestoreV2',
  'Placeholder',
  'VarHandleOp',
  'VariableV2',
  'AssignVariableOp',
  // has no outputs: it frees the array in TensorFlow, and the sequence here is simply no longer used
  'TensorArrayCloseV3',
]);
const SPECIAL = new Set(['Const', 'Placeholder', 'PlaceholderWithDefault', BERNOULLI_OP]);

/** Imports TF nodes (a GraphDef's, or an inlined function's) into a metadef Graph in the canonical op set. */
export function importNodes(source: readonly TfNode[], givenOptions: ImportOptions): ImportResult {
  const { nodes: list, options, problems } = withControlFlow(source, givenOptions);
  const diagnostics: Diagnostic[] = [];
  const at = (node?: string, opType?: string): DiagnosticLocation => ({
    ...(options.file !== undefined ? { file: options.file } : {}),
    ...(node !== undefined ? { node } : {}),
    ...(opType !== undefined ? { opType } : {}),
  });
  for (const p of problems) diagnostics.push(diagnostic('TSGE-E3123', { frame: p.frame, reason: `${p.node}: ${p.reason}` }, at(p.node)));
  if (list.length > LIMITS.nodes) {
    diagnostics.push(
      diagnostic('TSGE-E3106', { format: options.format, what: 'node count', actual: list.length, limit: LIMITS.nodes }, at()),
    );
    return { graph: undefined, diagnostics };
  }
  const nodes = new Map<string, TfNode>();
  for (const n of list) {
    if (nodes.has(n.name))
      diagnostics.push(diagnostic('TSGE-E3101', { format: options.format, reason: `node name ${n.name} is used twice` }, at(n.name, n.op)));
    nodes.set(n.name, n);
  }
  // graph outputs
  const outputs: { name: string; ref: TensorRef }[] = [];
  if (options.namedOutputs) outputs.push(...options.namedOutputs);
  else if (options.outputNodes?.length) {
    for (const spec of options.outputNodes) {
      const { ref } = parseRef(spec);
      if (!nodes.has(ref.node) || ref.index < 0)
        diagnostics.push(diagnostic('TSGE-E3114', { output: spec }, { ...at(), option: 'out_nodes' }));
      else outputs.push({ name: spec, ref });
    }
  } else {
    const consumed = new Set<string>();
    for (const n of nodes.values()) for (const r of n.inputs) consumed.add(r.node);
    for (const n of nodes.values())
      if (!consumed.has(n.name) && !NOT_OUTPUTS.has(n.op)) outputs.push({ name: n.name, ref: { node: n.name, index: 0 } });
  }
  // after choosing the default outputs: the rewrite leaves the dropout's adder unconsumed
  rewriteDropout(nodes);
  if (!outputs.length && !diagnostics.length)
    diagnostics.push(diagnostic('TSGE-E3101', { format: options.format, reason: 'the graph has no outputs' }, at()));

  // what the outputs need, in topological order (iterative: graphs can be deep)
  const order: TfNode[] = [];
  const state = new Map<string, 1 | 2>();
  for (const o of outputs) {
    if (!nodes.has(o.ref.node)) {
      diagnostics.push(diagnostic('TSGE-E3104', { node: o.name, input: o.ref.node }, at(o.name)));
      continue;
    }
    const stack: { node: TfNode; next: number }[] = [];
    const start = nodes.get(o.ref.node) as TfNode;
    if (state.has(start.name)) continue;
    state.set(start.name, 1);
    stack.push({ node: start, next: 0 });
    while (stack.length) {
      const top = stack[stack.length - 1] as { node: TfNode; next: number };
      if (top.next < top.node.inputs.length) {
        const ref = top.node.inputs[top.next++] as TensorRef;
        const producer = nodes.get(ref.node);
        if (!producer) {
          diagnostics.push(diagnostic('TSGE-E3104', { node: top.node.name, input: ref.node }, at(top.node.name, top.node.op)));
          continue;
        }
        const s = state.get(producer.name);
        if (s === 1) {
          diagnostics.push(diagnostic('TSGE-E3107', { node: producer.name }, at(producer.name, producer.op)));
          continue;
        }
        if (s === 2) continue;
        state.set(producer.name, 1);
        stack.push({ node: producer, next: 0 });
      } else {
        state.set(top.node.name, 2);
        order.push(top.node);
        stack.pop();
      }
    }
  }

  // every unsupported op type at once, with its count and first node
  const unsupported = new Map<string, { count: number; first: string }>();
  for (const n of order) {
    if (SPECIAL.has(n.op) || converters[n.op] || options.extraConverters?.[n.op]) continue;
    const u = unsupported.get(n.op);
    if (u) u.count++;
    else unsupported.set(n.op, { count: 1, first: n.name });
  }
  if (unsupported.size) {
    const ops = [...unsupported].map(([op, u]) => `${op} ×${u.count} (first: ${u.first})`).join(', ');
    diagnostics.push(diagnostic('TSGE-E3102', { count: unsupported.size, ops }, at()));
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { graph: undefined, diagnostics };

  const builder = new NodeFactory(options.graphName ?? 'main');
  const values = new Map<string, Value[]>();
  // by node object, not name: converters' nodes are renamed to their TF node's name afterwards
  const infos = new Map<Value['node'], Map<number, ValueInfo>>();
  const infoOf = (v: Value) => infos.get(v.node)?.get(v.index);
  const setInfo = (v: Value, info: ValueInfo) => {
    let byIndex = infos.get(v.node);
    if (!byIndex) infos.set(v.node, (byIndex = new Map()));
    byIndex.set(v.index, { ...byIndex.get(v.index), ...info });
  };
  const seenInputs = new Set<string>();
  for (const n of order) {
    try {
      const inputs = n.inputs.map((r) => {
        const produced = values.get(r.node);
        const v = produced?.[r.index];
        if (!v)
          throw new TfProblem('TSGE-E3103', {
            node: n.name,
            op: n.op,
            reason: `input ${r.node}:${r.index} has no value (its node has ${produced?.length ?? 0} outputs)`,
          });
        return v;
      });
      values.set(n.name, convertNode(n, inputs, builder, infoOf, setInfo, options, seenInputs));
    } catch (error) {
      diagnostics.push(problemToDiagnostic(error, at(n.name, n.op), options.format));
    }
  }
  if (options.inputShapes) {
    const placeholders = order.filter((n) => n.op === 'Placeholder' || n.op === 'PlaceholderWithDefault').map((n) => n.name);
    for (const name of options.inputShapes.keys())
      if (!seenInputs.has(name.replace(/:0$/, '')))
        diagnostics.push(
          diagnostic('TSGE-E3113', { input: name, inputs: placeholders.join(', ') || 'none' }, { ...at(), option: 'input_shape' }),
        );
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { graph: undefined, diagnostics };
  for (const o of outputs) {
    const v = values.get(o.ref.node)?.[o.ref.index];
    if (!v) {
      diagnostics.push(diagnostic('TSGE-E3114', { output: o.name }, at(o.ref.node)));
      continue;
    }
    if (infoOf(v)?.listBatch) {
      diagnostics.push(
        diagnostic(
          'TSGE-E3103',
          { node: o.ref.node, op: nodes.get(o.ref.node)?.op ?? '', reason: 'a batch of TensorLists cannot be a graph output' },
          at(o.ref.node),
        ),
      );
      continue;
    }
    builder.output(v, o.name);
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { graph: undefined, diagnostics };
  return { graph: builder.build(), diagnostics };
}

/**
 * TF1 control flow: while frames as `_TfWhile` nodes (Loop), then conds (Switch/Merge) as `_TfCond`
 * nodes (If), with the converters that import their subgraphs like any TF graph.
 */
function withControlFlow(
  source: readonly TfNode[],
  options: ImportOptions,
): { nodes: readonly TfNode[]; options: ImportOptions; problems: WhileProblem[] } {
  const whiles = new Map<string, WhileSpec>();
  const problems: WhileProblem[] = [];
  const conds = new Map<string, CondSpec>();
  const nodes = lowerConds(lowerWhiles(source, whiles, problems), conds);
  if (!whiles.size && !conds.size) return { nodes: source, options, problems };
  const depth = (options.subgraphDepth ?? 0) + 1;
  const importSubgraph: SubgraphImporter = (subgraph, outputs, inputs, graphName) =>
    depth > LIMITS.functionDepth
      ? {
          graph: undefined,
          diagnostics: [
            diagnostic('TSGE-E3106', {
              format: options.format,
              what: 'control-flow nesting depth',
              actual: depth,
              limit: LIMITS.functionDepth,
            }),
          ],
        }
      : importNodes(subgraph, {
          subgraphDepth: depth,
          format: options.format,
          graphName,
          ...(options.file !== undefined ? { file: options.file } : {}),
          weights: new Map([...(options.weights ?? []), ...inputs.constants]),
          placeholderInfos: inputs.infos,
          ...(withFlow.extraConverters ? { extraConverters: withFlow.extraConverters } : {}),
          namedOutputs: outputs.map((ref, k) => ({ name: `output_${k}`, ref })),
        });
  const withFlow: ImportOptions = {
    ...options,
    extraConverters: {
      ...options.extraConverters,
      ...(conds.size ? { [COND_OP]: condConverter(conds, importSubgraph) } : {}),
      ...(whiles.size ? { [WHILE_OP]: whileConverter(whiles, importSubgraph) } : {}),
    },
  };
  return { nodes, options: withFlow, problems };
}

function convertNode(
  n: TfNode,
  inputs: Value[],
  builder: NodeFactory,
  infoOf: (v: Value) => ValueInfo | undefined,
  setInfo: (v: Value, info: ValueInfo) => void,
  options: ImportOptions,
  seenInputs: Set<string>,
): Value[] {
  const ctx = new ConvertContext(n, builder, inputs, infoOf, setInfo);
  if (n.op === 'Const') {
    const weight = options.weights?.get(n.weightOf ?? n.name);
    const proto = n.attr.value?.tensor;
    if (!weight && !proto) throw ctx.problem('Const has no value');
    const tensor = weight ?? decodeTensor(proto as NonNullable<typeof proto>, n.name);
    const v = builder.constant(n.name, tensor);
    setInfo(v, { constant: tensor, rank: tensor.dims.length, dtype: tensor.type });
    return [v];
  }
  if (n.op === 'Placeholder' || n.op === 'PlaceholderWithDefault') {
    seenInputs.add(n.name);
    const known = options.placeholderInfos?.get(n.name);
    if (known) {
      // a subgraph input: the outer value's dtype, rank and kind
      const shape: Shape = known.rank !== undefined ? Array.from({ length: known.rank }, () => -1) : [-2];
      const v = builder.input(n.name, known.dtype ?? 'float32', shape, known.sequence === true);
      setInfo(v, known);
      return [v];
    }
    const dtypeAttr = n.attr.dtype?.type;
    if (isResourceOrVariant(dtypeAttr)) throw ctx.problem('resource and variant inputs are not supported');
    const dtype: DataType = tfDtype(dtypeAttr ?? 1, `${n.name} dtype`);
    const override = options.inputShapes?.get(n.name) ?? options.inputShapes?.get(`${n.name}:0`);
    const declared = ctx.attrs.shape('shape');
    const shape: Shape = override ? [...override] : declared ? declared : [-2];
    const name = options.inputNames?.get(n.name) ?? n.name;
    const v = builder.input(name, dtype, shape);
    setInfo(v, { dtype, ...(shape.length === 1 && shape[0] === -2 ? {} : { rank: shape.length }) });
    return [v];
  }
  if (n.op === BERNOULLI_OP) {
    const type = ctx.attrs.dtype('T', 'float32');
    const p = ctx.op1('Expand', [ctx.cast(ctx.input(0), 'float32'), ctx.toInt64(ctx.input(1))]);
    return [ctx.note(ctx.op1('Bernoulli', [p], { dtype: attr.int(ONNX_DTYPE[type]) }), { dtype: type })];
  }
  const converter = converters[n.op] ?? options.extraConverters?.[n.op];
  if (!converter) throw ctx.problem('no converter');
  if (!LIST_BATCH_READERS.has(n.op) && inputs.some((v) => infoOf(v)?.listBatch))
    throw ctx.problem(`a batch of TensorLists is read only by ${[...LIST_BATCH_READERS].join(', ')}`);
  const results = converter(ctx);
  const first = results[0]?.node;
  if (first && ctx.created.has(first) && results.every((v) => v.node === first)) builder.rename(first, n.name);
  return results;
}

export { shapeOf };
