// TF2 SavedModel directory: saved_model.pb (MetaGraphDefs with signatures and a function library)
// plus the variables checkpoint in variables/. One signature (`--signature`, default
// serving_default) is imported: its input and output keys become the graph's input/output names.
import { type Diagnostic, type ParseInput, type ParseOptions, type ParseResult, type Shape, TsgeError } from '@tsge/metadef';
import { importNodes } from '../import/importer.js';
import { type TensorRef, parseRef } from '../import/tf-node.js';
import { looksLikeText } from '../graphdef/decode.js';
import { parseTextFormat } from '../graphdef/text-format.js';
import { type IMetaGraphDef, type ISavedModel, type ISignatureDef, tf, tfDescriptor } from '../internal/proto.js';
import { TfProblem, problemToDiagnostic } from '../internal/problem.js';
import { TensorBundle } from './bundle.js';
import { inlineFunctions } from './inline-functions.js';
import { bindVariables, reachable } from './variables.js';

const FORMAT = 'SavedModel';
const DEFAULT_SIGNATURE = 'serving_default';
const INIT_SIGNATURE = '__saved_model_init_op';
const VARIABLES_PREFIX = 'variables/variables';

/** True for a binary SavedModel (schema version, then meta_graphs), a text one, or a file named saved_model.pb(txt). */
export function looksLikeSavedModel(bytes: Uint8Array, path?: string): boolean {
  if (/(^|[\\/])saved_model\.pb(txt)?$/i.test(path ?? '')) return true;
  if (looksLikeText(bytes)) return /^(saved_model_schema_version|meta_graphs)\s*[{:<]/.test(textHead(bytes));
  // field 1 (varint schema version), field 2 (a MetaGraphDef, whose first field is meta_info_def
  // or graph_def): ONNX also starts 0x08 .. 0x12, but with a producer name, never a 0x0a/0x12 byte
  if (bytes.length < 6 || bytes[0] !== 0x08 || (bytes[1] as number) >= 0x80 || bytes[2] !== 0x12) return false;
  let i = 3;
  while (i < 8 && i < bytes.length && ((bytes[i] as number) & 0x80) !== 0) i++;
  const next = bytes[i + 1];
  return next === 0x0a || next === 0x12;
}

/** The start of protobuf text with comments and leading space removed. */
export function textHead(bytes: Uint8Array): string {
  return new TextDecoder()
    .decode(bytes.subarray(0, 512))
    .replace(/#[^\n]*\n/g, '')
    .trimStart();
}

/** A SavedModel from binary protobuf, or protobuf text (`saved_model.pbtxt`). */
export function decodeSavedModel(bytes: Uint8Array, path?: string): ISavedModel {
  if (/\.pbtxt$/i.test(path ?? '') || looksLikeText(bytes)) {
    let source: string;
    try {
      source = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new TfProblem('TSGE-E3101', { format: 'SavedModel text', reason: 'the file is not UTF-8 text' });
    }
    const object = parseTextFormat(source, tfDescriptor, 'tensorflow.SavedModel');
    try {
      return tf.SavedModel.fromObject(object);
    } catch (error) {
      throw new TfProblem('TSGE-E3101', { format: 'SavedModel text', reason: error instanceof Error ? error.message : String(error) });
    }
  }
  try {
    return tf.SavedModel.decode(bytes);
  } catch (error) {
    throw new TfProblem('TSGE-E3101', { format: FORMAT, reason: error instanceof Error ? error.message : String(error) });
  }
}

/** The meta graph holding `signature`, preferring the one tagged `serve`. */
function pickMetaGraph(model: ISavedModel, signature: string): { meta: IMetaGraphDef; def: ISignatureDef } {
  const metas = model.metaGraphs ?? [];
  const holding = metas.filter((m) => Object.hasOwn(m.signatureDef ?? {}, signature));
  const meta = holding.find((m) => m.metaInfoDef?.tags?.includes('serve')) ?? holding[0];
  if (!meta) {
    const available = [...new Set(metas.flatMap((m) => Object.keys(m.signatureDef ?? {})))].filter((s) => s !== INIT_SIGNATURE);
    throw new TfProblem('TSGE-E3109', { signature, available: available.join(', ') || 'none' });
  }
  return { meta, def: (meta.signatureDef as Record<string, ISignatureDef>)[signature] as ISignatureDef };
}

/** Signature keys with their tensor names (`node:index`); sparse and composite tensors are refused. */
function tensorsOf(signature: string, def: ISignatureDef, side: 'inputs' | 'outputs'): { key: string; tensor: string }[] {
  return Object.entries(def[side] ?? {}).map(([key, info]) => {
    if (!info.name) throw new TfProblem('TSGE-E3122', { signature, reason: `${side} ${key} is not a dense tensor (sparse or composite)` });
    return { key, tensor: info.name };
  });
}

/** Parses a SavedModel's `saved_model.pb`; variables are read through `readRange` / `readRelative`. */
export async function parseSavedModel(input: ParseInput, options: ParseOptions = {}): Promise<ParseResult> {
  const file = input.path;
  const at = file !== undefined ? { file } : undefined;
  try {
    const requested = options.extra?.signature;
    if (requested !== undefined && (typeof requested !== 'string' || requested === ''))
      throw new TfProblem('TSGE-E3122', { signature: String(requested), reason: 'the signature option must be a non-empty name' });
    const signature = (requested as string | undefined) ?? DEFAULT_SIGNATURE;
    const { meta, def } = pickMetaGraph(decodeSavedModel(input.bytes, file), signature);
    const inlined = inlineFunctions(meta.graphDef ?? {});
    const resolve = (tensor: string): TensorRef => {
      try {
        return inlined.resolve(tensor);
      } catch (error) {
        if (error instanceof TfProblem && error.code === 'TSGE-E3101')
          throw new TfProblem('TSGE-E3122', { signature, reason: `tensor ${tensor}: ${String(error.args.reason)}` });
        throw error;
      }
    };

    const inputNames = new Map<string, string>();
    const keyToNode = new Map<string, string>();
    for (const { key, tensor } of tensorsOf(signature, def, 'inputs')) {
      const { ref } = parseRef(tensor);
      inputNames.set(ref.node, key);
      keyToNode.set(key, ref.node);
    }
    let outputs = tensorsOf(signature, def, 'outputs').map(({ key, tensor }) => ({ name: key, ref: resolve(tensor) }));
    const diagnostics: Diagnostic[] = [];
    if (options.outputNodes?.length) {
      const chosen: typeof outputs = [];
      for (const spec of options.outputNodes) {
        const byKey = outputs.find((o) => o.name === spec);
        if (byKey) chosen.push(byKey);
        else {
          try {
            chosen.push({ name: spec, ref: inlined.resolve(spec) });
          } catch {
            throw new TfProblem('TSGE-E3114', { output: spec });
          }
        }
      }
      outputs = chosen;
    }
    // --input_shape may name the signature key or the placeholder
    let inputShapes: Map<string, Shape> | undefined;
    if (options.inputShapes) {
      inputShapes = new Map();
      for (const [name, shape] of options.inputShapes) inputShapes.set(keyToNode.get(name) ?? name, shape);
    }
    const needed = reachable(
      inlined.nodes,
      outputs.map((o) => o.ref),
    );
    const { weights, unresolved } = await bindVariables(inlined.nodes, needed, () => TensorBundle.open(input, VARIABLES_PREFIX));
    const result = importNodes(inlined.nodes, {
      format: FORMAT,
      graphName: signature,
      ...(file !== undefined ? { file } : {}),
      ...(inputShapes ? { inputShapes } : {}),
      namedOutputs: outputs,
      inputNames,
      weights,
      extraConverters: unresolved,
    });
    return { graph: result.graph, diagnostics: [...diagnostics, ...result.diagnostics] };
  } catch (error) {
    if (TsgeError.isInstance(error)) return { graph: undefined, diagnostics: [...error.diagnostics] };
    return { graph: undefined, diagnostics: [problemToDiagnostic(error, at, FORMAT)] };
  }
}
