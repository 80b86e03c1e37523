import { type OpRegistry, type ParseInput, type ParseOptions, type ParseResult, TsgeError, airParser, diagnostic } from '@tsge/metadef';
import { mapGeOps } from './ge-ops.js';

/**
 * A `.air` file (GE ModelDef) as MindSpore exports it: metadef's `.air` reader decodes it, then
 * GE op types are rewritten into the canonical set.
 */
export async function parseMindsporeAir(input: ParseInput, options: ParseOptions = {}): Promise<ParseResult> {
  const result = await airParser.parse(input, options);
  if (!result.graph) return result;
  const ops = options.extra?.ops as OpRegistry | undefined;
  try {
    for (const graph of [result.graph, ...result.graph.subgraphs.values()])
      mapGeOps(graph, ops ? (type, domain) => ops.has(type, domain) : undefined);
    return result;
  } catch (error) {
    if (TsgeError.isInstance(error)) return { graph: undefined, diagnostics: [...result.diagnostics, ...error.diagnostics] };
    return {
      graph: undefined,
      diagnostics: [...result.diagnostics, diagnostic('TSGE-E3310', { node: '?', op: '?', reason: String(error) })],
    };
  }
}
