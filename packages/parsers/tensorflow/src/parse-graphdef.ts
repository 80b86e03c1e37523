import type { Diagnostic, ParseInput, ParseOptions, ParseResult } from '@tsge/metadef';
import { decodeGraphDef } from './graphdef/decode.js';
import { importNodes } from './import/importer.js';
import { type TensorRef, type TfNode, toTfNode } from './import/tf-node.js';
import type { IGraphDef } from './internal/proto.js';
import { TfProblem, problemToDiagnostic } from './internal/problem.js';
import { type InlinedGraph, inlineFunctions } from './saved_model/inline-functions.js';

/** GraphDef nodes as TfNodes; a malformed input list becomes a diagnostic. */
export function graphDefNodes(graph: IGraphDef): TfNode[] {
  return (graph.node ?? []).map((n, i) => toTfNode(n, i));
}

const FUNCTIONAL = new Set(['PartitionedCall', 'StatefulPartitionedCall', 'While', 'StatelessWhile', 'If', 'StatelessIf']);

function needsInlining(graph: IGraphDef): boolean {
  return (graph.library?.function?.length ?? 0) > 0 || (graph.node ?? []).some((n) => FUNCTIONAL.has(n.op ?? ''));
}

function outputRef(inlined: InlinedGraph, names: ReadonlySet<string>, spec: string): TensorRef {
  let ref: TensorRef | undefined;
  try {
    ref = inlined.resolve(spec);
  } catch {
    // reported below
  }
  if (!ref || !names.has(ref.node)) throw new TfProblem('TSGE-E3114', { output: spec });
  return ref;
}

/** Parses a frozen GraphDef (`.pb` binary or `.pbtxt` text). */
export async function parseTensorflow(input: ParseInput, options: ParseOptions = {}): Promise<ParseResult> {
  const file = input.path;
  try {
    const graph = decodeGraphDef(input.bytes, file);
    // function calls and functional control flow are inlined as in a SavedModel; `--out_nodes` may name a call's output
    const inlined = needsInlining(graph) ? inlineFunctions(graph) : undefined;
    const names = new Set(inlined?.nodes.map((n) => n.name));
    const namedOutputs =
      inlined && options.outputNodes?.length
        ? options.outputNodes.map((spec) => ({ name: spec, ref: outputRef(inlined, names, spec) }))
        : undefined;
    const { graph: result, diagnostics } = importNodes(inlined ? inlined.nodes : graphDefNodes(graph), {
      format: 'GraphDef',
      ...(file !== undefined ? { file } : {}),
      ...(options.inputShapes ? { inputShapes: options.inputShapes } : {}),
      ...(namedOutputs ? { namedOutputs } : options.outputNodes ? { outputNodes: options.outputNodes } : {}),
    });
    return { graph: result, diagnostics };
  } catch (error) {
    const d: Diagnostic = problemToDiagnostic(error, file !== undefined ? { file } : undefined, 'GraphDef');
    return { graph: undefined, diagnostics: [d] };
  }
}
