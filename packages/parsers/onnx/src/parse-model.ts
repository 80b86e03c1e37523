import {
  type AttrValue,
  type Diagnostic,
  type Graph,
  type OpRegistry,
  type ParseInput,
  type ParseOptions,
  type ParseResult,
  attr,
  diagnostic,
} from '@tsge/metadef';
import { type ImportContext, importRootGraph } from './import/graph-importer.js';
import { decodeFunctions } from './import/functions.js';
import { selectOutputs } from './import/select-outputs.js';
import { transformNodes } from './import/transform.js';
import { TensorLoader } from './import/tensor-loader.js';
import { int64ToNumber } from './internal/int64.js';
import { problemToDiagnostic } from './internal/problem.js';
import { type IModelProto, onnx } from './internal/proto.js';

/** Graph attributes the parser writes on the root graph. */
export const ATTR_OPSET_IMPORTS = '_opset_imports';
export const ATTR_IR_VERSION = '_ir_version';
export const ATTR_PRODUCER = '_producer';

/** Options the ONNX parser reads from `ParseOptions.extra`. */
export interface OnnxParseExtra {
  /** Op registry; when given, every op that is not registered is reported (TSGE-E3002). */
  readonly ops?: OpRegistry;
  /** Names of initializers to keep as graph inputs (Data nodes) instead of constants. */
  readonly initializerInputs?: readonly string[];
}

function normalizeDomain(domain: string | null | undefined): string {
  return domain ? domain : 'ai.onnx';
}

/** Decodes ModelProto bytes; malformed protobuf becomes a diagnostic. */
export function decodeModelProto(bytes: Uint8Array, file?: string): { model: IModelProto | undefined; diagnostics: Diagnostic[] } {
  try {
    return { model: onnx.ModelProto.decode(bytes), diagnostics: [] };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      model: undefined,
      diagnostics: [diagnostic('TSGE-E3003', { reason: `not a valid ONNX ModelProto: ${reason}` }, file ? { file } : undefined)],
    };
  }
}

export function opsetsOf(model: IModelProto): Map<string, number> {
  const opsets = new Map<string, number>();
  for (const o of model.opsetImport ?? []) opsets.set(normalizeDomain(o.domain), int64ToNumber(o.version));
  // IR v1-2 models without opset_import mean opset 1 of the default domain
  if (!opsets.has('ai.onnx')) opsets.set('ai.onnx', 1);
  return opsets;
}

/** Parses an ONNX model into a metadef Graph in the canonical op set. */
export async function parseOnnx(input: ParseInput, options: ParseOptions = {}): Promise<ParseResult> {
  try {
    return await parseModel(input, options);
  } catch (error) {
    // a bug or an I/O failure inside the parser still reaches the caller as a diagnostic
    return { graph: undefined, diagnostics: [problemToDiagnostic(error, input.path !== undefined ? { file: input.path } : undefined)] };
  }
}

async function parseModel(input: ParseInput, options: ParseOptions): Promise<ParseResult> {
  const file = input.path;
  const { model, diagnostics } = decodeModelProto(input.bytes, file);
  if (!model) return { graph: undefined, diagnostics };
  if (!model.graph)
    return { graph: undefined, diagnostics: [diagnostic('TSGE-E3003', { reason: 'the model has no graph' }, file ? { file } : undefined)] };
  const extra = (options.extra ?? {}) as OnnxParseExtra;
  const opsets = opsetsOf(model);
  const collected: Diagnostic[] = [];
  const loader = new TensorLoader(input);
  const functions = await decodeFunctions(model.functions ?? [], loader, collected);
  const usedNames = new Set<string>();
  const ctx: ImportContext = {
    loader,
    diagnostics: collected,
    file,
    opsets,
    ops: extra.ops,
    initializerInputs: new Set(extra.initializerInputs ?? []),
    subgraphNames: new Set(),
    transform: (nodes, graphName, shapeOf) =>
      transformNodes(nodes, { opsets, functions, diagnostics: collected, file, graphName, ops: extra.ops, shapeOf, usedNames }),
  };
  let graph: Graph;
  try {
    graph = await importRootGraph(model.graph, ctx);
  } catch (error) {
    return { graph: undefined, diagnostics: [...collected, problemToDiagnostic(error, file ? { file } : undefined)] };
  }
  const imports = new Map<string, AttrValue>();
  for (const [domain, version] of opsets) imports.set(domain, attr.int(version));
  graph.attrs.set(ATTR_OPSET_IMPORTS, attr.namedAttrs({ name: 'opset_imports', attrs: imports }));
  graph.attrs.set(ATTR_IR_VERSION, attr.int(int64ToNumber(model.irVersion)));
  if (model.producerName) graph.attrs.set(ATTR_PRODUCER, attr.string(`${model.producerName} ${model.producerVersion ?? ''}`.trim()));
  applyInputShapes(graph, options, collected);
  if (options.outputNodes?.length) selectOutputs(graph, options.outputNodes, collected);
  const hasErrors = collected.some((d) => d.severity === 'error');
  return { graph: hasErrors ? undefined : graph, diagnostics: collected };
}

/** `--input_shape` overrides: the Data node's descs take the given shape. */
function applyInputShapes(graph: Graph, options: ParseOptions, diagnostics: Diagnostic[]): void {
  if (!options.inputShapes) return;
  const inputs = graph.inputNodes();
  for (const [name, shape] of options.inputShapes) {
    const node = inputs.find((n) => n.opDesc.outputNames[0] === name || n.name === name);
    if (!node) {
      diagnostics.push(diagnostic('TSGE-E5005', { reason: `no graph input named ${name}` }));
      continue;
    }
    for (const desc of [...node.opDesc.inputDescs, ...node.opDesc.outputDescs]) {
      desc.shape = [...shape];
      desc.originShape = [...shape];
    }
  }
}
