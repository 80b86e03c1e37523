import { type Diagnostic, type Graph, attr, diagnostic } from '@tsge/metadef';
import type { TfliteModel } from '../schema/model.js';
import { ImportContext } from './context.js';
import { ImportProblem } from './problem.js';
import { TRANSLATORS } from './registry.js';

/** The canonical opset the imported graph is written in. */
export const ONNX_OPSET = 22;

/**
 * Imports subgraph 0 of a model. Every operator is translated; problems are collected (each
 * naming the operator and its first output tensor) so one parse reports all of them.
 */
export function importModel(
  model: TfliteModel,
  file: string | undefined,
  diagnostics: Diagnostic[],
  options: { dequantize?: boolean } = {},
): Graph | undefined {
  const main = model.subgraphs[0];
  if (!main) {
    diagnostics.push(diagnostic('TSGE-E3401', { reason: 'the model has no subgraph' }, file ? { file } : undefined));
    return undefined;
  }
  const ctx = new ImportContext(model, main, main.name || 'tflite', options);
  const at = (node?: string, opType?: string) => ({ ...(file ? { file } : {}), ...(node ? { node } : {}), ...(opType ? { opType } : {}) });
  const report = (error: unknown, node?: string, opType?: string) => {
    if (error instanceof ImportProblem) diagnostics.push(diagnostic(error.code, error.args, { ...at(node, opType), ...error.location }));
    else
      diagnostics.push(
        diagnostic(
          'TSGE-E3403',
          { reason: `${opType ?? 'graph'}: ${error instanceof Error ? error.message : String(error)}` },
          at(node, opType),
        ),
      );
  };
  try {
    ctx.addInputs();
  } catch (error) {
    report(error);
    return undefined;
  }
  let failed = false;
  for (const op of main.operators) {
    ctx.op = op;
    const node = main.tensors[op.outputs[0] ?? -1]?.name ?? `operator ${op.index}`;
    const translate = op.opcode.customCode === undefined || op.opcode.builtin !== 32 ? TRANSLATORS[op.opcode.name] : undefined;
    if (!translate) {
      diagnostics.push(diagnostic('TSGE-E3402', { op: op.opcode.name, version: op.opcode.version }, at(node, op.opcode.name)));
      failed = true;
      continue;
    }
    try {
      translate(ctx);
    } catch (error) {
      report(error, node, op.opcode.name);
      failed = true;
    }
  }
  ctx.op = undefined;
  if (failed) return undefined;
  try {
    ctx.addOutputs();
  } catch (error) {
    report(error);
    return undefined;
  }
  const graph = ctx.b.build();
  graph.attrs.set('_opset_imports', attr.namedAttrs({ name: 'opset_imports', attrs: new Map([['ai.onnx', attr.int(ONNX_OPSET)]]) }));
  if (model.subgraphs.length > 1) {
    diagnostics.push(
      diagnostic(
        'TSGE-E3406',
        { reason: `subgraphs 1..${model.subgraphs.length - 1} are not imported (only control-flow ops use them)` },
        file ? { file } : undefined,
        'warning',
      ),
    );
  }
  return graph;
}
