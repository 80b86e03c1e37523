import { type Diagnostic, type ParseInput, type ParseOptions, type ParseResult, diagnostic } from '@tsge/metadef';
import { importModel } from './import/import-graph.js';
import { readTfliteModel } from './schema/model.js';
import { FlatbufferError } from './schema/table.js';

/** Options the TFLite parser reads from `ParseOptions.extra`. */
export interface TfliteParseExtra {
  /**
   * Import a quantized model as a float32 one: quantized constants are dequantized at parse time
   * and every op computes in float. Off by default (quantized models stay quantized); meant for
   * comparing a quantized model with its float equivalent.
   */
  readonly dequantize?: boolean;
}

/** Parses a .tflite flatbuffer into a metadef Graph in the canonical op set. Never throws. */
export async function parseTflite(input: ParseInput, options: ParseOptions = {}): Promise<ParseResult> {
  const file = input.path;
  const where = file ? { file } : undefined;
  const diagnostics: Diagnostic[] = [];
  let model: ReturnType<typeof readTfliteModel>;
  try {
    model = readTfliteModel(input.bytes);
  } catch (error) {
    const reason =
      error instanceof FlatbufferError
        ? error.message
        : `unexpected reader failure: ${error instanceof Error ? error.message : String(error)}`;
    return { graph: undefined, diagnostics: [diagnostic('TSGE-E3401', { reason }, where)] };
  }
  if (options.inputShapes?.size) {
    diagnostics.push(
      diagnostic(
        'TSGE-E3406',
        { reason: 'input shape overrides are not supported for TFLite models (their shapes are fixed by the converter)' },
        where,
      ),
    );
    return { graph: undefined, diagnostics };
  }
  if (options.outputNodes?.length) {
    diagnostics.push(diagnostic('TSGE-E3406', { reason: 'output node selection is not supported for TFLite models' }, where));
    return { graph: undefined, diagnostics };
  }
  const extra = (options.extra ?? {}) as TfliteParseExtra;
  const graph = importModel(model, file, diagnostics, { dequantize: extra.dequantize === true });
  const hasErrors = diagnostics.some((d) => d.severity === 'error');
  return { graph: hasErrors ? undefined : graph, diagnostics };
}
