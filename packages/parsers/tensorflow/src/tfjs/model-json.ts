import type { ParseInput, ParseOptions, ParseResult } from '@tsge/metadef';
import { importNodes } from '../import/importer.js';
import { parseRef } from '../import/tf-node.js';
import { type TfNode, toTfNode } from '../import/tf-node.js';
import type { IAttrValue } from '../internal/proto.js';
import { tf } from '../internal/proto.js';
import { TfProblem, problemToDiagnostic } from '../internal/problem.js';
import { parseLayersModel } from './layers-model.js';
import { readWeights } from './weights.js';

const FORMAT = 'TensorFlow.js model';

/** The parsed model.json, with its kind: a graph model (GraphDef as JSON) or a layers model (Keras topology). */
export function readModelJson(bytes: Uint8Array): { json: Record<string, unknown>; kind: 'graph' | 'layers' } {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw new TfProblem('TSGE-E3101', { format: FORMAT, reason: `not JSON: ${error instanceof Error ? error.message : String(error)}` });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new TfProblem('TSGE-E3101', { format: FORMAT, reason: 'not a JSON object' });
  const object = json as Record<string, unknown>;
  const topology = object.modelTopology as Record<string, unknown> | undefined;
  if (typeof topology !== 'object' || topology === null) throw new TfProblem('TSGE-E3101', { format: FORMAT, reason: 'no modelTopology' });
  if (object.format === 'graph-model' || Array.isArray(topology.node)) return { json: object, kind: 'graph' };
  if (object.format === 'layers-model' || 'class_name' in topology || 'model_config' in topology) return { json: object, kind: 'layers' };
  throw new TfProblem('TSGE-E3101', { format: FORMAT, reason: `unknown format ${String(object.format)}` });
}

interface SignatureJson {
  readonly inputs?: Record<string, { name?: string }>;
  readonly outputs?: Record<string, { name?: string }>;
}

/** Parses a TensorFlow.js `model.json` (graph or layers model) with its weight shards. */
export async function parseTfjs(input: ParseInput, options: ParseOptions = {}): Promise<ParseResult> {
  const file = input.path;
  try {
    const { json, kind } = readModelJson(input.bytes);
    const weights = await readWeights(json.weightsManifest ?? [], input.readRelative);
    if (kind === 'layers') return parseLayersModel(json, weights, options, file);
    let graph: ReturnType<typeof tf.GraphDef.fromObject>;
    try {
      graph = tf.GraphDef.fromObject(json.modelTopology as Record<string, unknown>);
    } catch (error) {
      throw new TfProblem('TSGE-E3101', {
        format: FORMAT,
        reason: `modelTopology: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    const signature = (json.signature ?? (json.userDefinedMetadata as { signature?: unknown } | undefined)?.signature) as
      | SignatureJson
      | undefined;
    const signatureOutputs = Object.values(signature?.outputs ?? {})
      .map((o) => o.name)
      .filter((n): n is string => typeof n === 'string');
    // tfjs names outputs by node (`node` for output 0, `node:i` otherwise), as GraphModel.outputs does
    const namedOutputs =
      !options.outputNodes?.length && signatureOutputs.length
        ? signatureOutputs.map((name) => {
            const { ref } = parseRef(name);
            return { name: ref.index === 0 ? ref.node : `${ref.node}:${ref.index}`, ref };
          })
        : undefined;
    const { graph: result, diagnostics } = importNodes(
      (graph.node ?? []).map((n, i) => doubleAsFloat(toTfNode(n, i))),
      {
        format: FORMAT,
        weights,
        ...(file !== undefined ? { file } : {}),
        ...(options.inputShapes ? { inputShapes: options.inputShapes } : {}),
        ...(options.outputNodes ? { outputNodes: options.outputNodes } : {}),
        ...(namedOutputs ? { namedOutputs } : {}),
      },
    );
    return { graph: result, diagnostics };
  } catch (error) {
    return { graph: undefined, diagnostics: [problemToDiagnostic(error, file !== undefined ? { file } : undefined, FORMAT)] };
  }
}

const DT_DOUBLE = 2;
const DT_FLOAT = 1;

/**
 * TensorFlow.js has no float64: its converter stores DT_DOUBLE weights as float32 and its runtime
 * computes DT_DOUBLE ops in float32, so a graph model's DT_DOUBLE types are read as DT_FLOAT.
 */
function doubleAsFloat(node: TfNode): TfNode {
  let changed = false;
  const attr: Record<string, IAttrValue> = {};
  for (const [name, value] of Object.entries(node.attr)) {
    const types = value.list?.type;
    if (value.type === DT_DOUBLE) {
      attr[name] = { ...value, type: DT_FLOAT };
      changed = true;
    } else if (types?.includes(DT_DOUBLE)) {
      attr[name] = { ...value, list: { ...value.list, type: types.map((t) => (t === DT_DOUBLE ? DT_FLOAT : t)) } };
      changed = true;
    } else attr[name] = value;
  }
  return changed ? { ...node, attr } : node;
}

/** Confidence that bytes are a TensorFlow.js model.json. */
export function sniffTfjs(bytes: Uint8Array, path?: string): number {
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  if (bytes[i] !== 0x7b) return 0;
  const head = new TextDecoder().decode(bytes.subarray(0, Math.min(bytes.length, 1 << 16)));
  if (/"modelTopology"\s*:/.test(head) || /"format"\s*:\s*"(graph|layers)-model"/.test(head)) return 0.95;
  return (path ?? '').endsWith('model.json') ? 0.3 : 0;
}
