import type { Diagnostic, ParseInput, ParseOptions, ParseResult } from '@tsge/metadef';
import { decodeGraphDef } from './graphdef/decode.js';
import { importNodes } from './import/importer.js';
import { type TfNode, toTfNode } from './import/tf-node.js';
import type { IGraphDef } from './internal/proto.js';
import { problemToDiagnostic } from './internal/problem.js';

/** GraphDef nodes as TfNodes; a malformed input list becomes a diagnostic. */
export function graphDefNodes(graph: IGraphDef): TfNode[] {
  return (graph.node ?? []).map((n, i) => toTfNode(n, i));
}

/** Parses a frozen GraphDef (`.pb` binary or `.pbtxt` text). */
export async function parseTensorflow(input: ParseInput, options: ParseOptions = {}): Promise<ParseResult> {
  const file = input.path;
  try {
    const graph = decodeGraphDef(input.bytes, file);
    const { graph: result, diagnostics } = importNodes(graphDefNodes(graph), {
      format: 'GraphDef',
      ...(file !== undefined ? { file } : {}),
      ...(options.inputShapes ? { inputShapes: options.inputShapes } : {}),
      ...(options.outputNodes ? { outputNodes: options.outputNodes } : {}),
    });
    return { graph: result, diagnostics };
  } catch (error) {
    const d: Diagnostic = problemToDiagnostic(error, file !== undefined ? { file } : undefined, 'GraphDef');
    return { graph: undefined, diagnostics: [d] };
  }
}
