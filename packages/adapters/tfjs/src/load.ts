import type { CompileCacheOptions, OptLevel } from '@tsge/ge';
import { InferenceSession, TsgeError } from '@tsge/ge';
import type { io } from '@tensorflow/tfjs-core';
import { type GraphModel, createGraphModel } from './graph-model.js';
import { type LayersModel, createLayersModel } from './layers-model.js';
import { layersTensorNames } from './layers-names.js';
import { type InputPolicy, ModelCore } from './model-core.js';
import { type ModelRead, type ModelSource, modelKind, readModel } from './model-source.js';

/** tsge's own load options, under `tsge` beside tfjs's. */
export interface TsgeModelOptions {
  /** Input name → shape: compiles a static plan (faster) instead of one that takes any size for -1 dims. */
  readonly inputShapes?: Readonly<Record<string, readonly number[]>>;
  /** Executor worker threads (default: one per core). */
  readonly threads?: number;
  /** Compiler optimization level (default 3). */
  readonly optLevel?: OptLevel;
  /** Keep compiled models on disk, keyed by the model's hash and these options. */
  readonly cache?: CompileCacheOptions;
}

/** tfjs's `io.LoadOptions` (which configure its http loading: refused here) and tsge's options. */
export interface LoadOptions extends io.LoadOptions {
  readonly tsge?: TsgeModelOptions;
}

const TSGE_OPTIONS: readonly string[] = ['inputShapes', 'threads', 'optLevel', 'cache'];

/**
 * TensorFlow.js's `loadGraphModel` on tsge: a model.json graph model from a path, a `file://` URL
 * or a tfjs IOHandler (its `load()` is called; `tf.io.http(url)` fetches over the network),
 * compiled by tsge.
 */
export async function loadGraphModel(source: ModelSource, options: LoadOptions = {}): Promise<GraphModel> {
  const read = await readModel(source, 'loadGraphModel');
  const core = await openModel(read, options, 'graph', {
    castNumeric: false,
    shapeProblem: (name, expected, got) =>
      `The shape of dict['${name}'] provided in model.execute(dict) must be [${expected}], but was [${got.join(',')}]`,
  });
  return createGraphModel(core);
}

/** TensorFlow.js's `loadLayersModel` on tsge: a Keras topology model.json (Sequential or functional). */
export async function loadLayersModel(source: ModelSource, options: LoadOptions = {}): Promise<LayersModel> {
  const read = await readModel(source, 'loadLayersModel');
  const core = await openModel(read, options, 'layers', {
    castNumeric: true,
    shapeProblem: (name, expected, got) =>
      `Error when checking : expected ${name} to have shape [${expected.replaceAll('-1', 'null')}] but got array with shape [${got.join(',')}]`,
  });
  return createLayersModel(core);
}

async function openModel(read: ModelRead, options: LoadOptions, kind: 'graph' | 'layers', policy: InputPolicy): Promise<ModelCore> {
  const tsge = checkOptions(options);
  const file = read.file !== undefined ? { file: read.file } : undefined;
  const found = modelKind(read.json);
  if (found !== kind) {
    const reason = found
      ? `it is a ${found} model; load it with ${found === 'graph' ? 'loadGraphModel' : 'loadLayersModel'}()`
      : 'it is neither a graph model (GraphDef nodes) nor a layers model (a Keras topology)';
    throw TsgeError.of('TSGE-E8302', { source: read.file ?? 'IOHandler', reason }, file);
  }
  if ((read.json.modelInitializer?.node?.length ?? 0) > 0) {
    throw TsgeError.of('TSGE-E8303', { reason: 'the model has an initializer graph (hash tables): tsge does not run it' }, file);
  }
  const open = (outNodes?: readonly string[]): Promise<InferenceSession> =>
    InferenceSession.create(read.file ?? read.bytes, {
      format: 'tfjs',
      ...(read.file === undefined ? { fileName: 'model.json' } : {}),
      ...(read.sideFiles ? { sideFiles: read.sideFiles } : {}),
      ...(tsge.inputShapes ? { inputShapes: tsge.inputShapes } : {}),
      ...(tsge.optLevel !== undefined || outNodes
        ? {
            compile: {
              ...(tsge.optLevel !== undefined ? { optLevel: tsge.optLevel } : {}),
              ...(outNodes ? { outNodes: [...outNodes] } : {}),
            },
          }
        : {}),
      ...(tsge.threads !== undefined ? { load: { threads: tsge.threads } } : {}),
      ...(tsge.cache ? { cache: tsge.cache } : {}),
    });
  // graph models fetch intermediate nodes by compiling again with them as the outputs
  const coreOptions = kind === 'graph' ? { openWithOutputs: open } : { tfNames: layersTensorNames(read.json) };
  return new ModelCore(await open(), read.json, policy, coreOptions);
}

/** tfjs's load options configure its http loading, which this adapter leaves to tf.io.http: refused, not ignored. */
function checkOptions(options: LoadOptions): TsgeModelOptions {
  if (typeof options !== 'object' || options === null) throw TsgeError.of('TSGE-E8304', { option: 'options', reason: 'must be an object' });
  for (const [key, value] of Object.entries(options)) {
    if (key === 'tsge' || value === undefined) continue;
    throw TsgeError.of('TSGE-E8304', {
      option: key,
      reason: 'configures TensorFlow.js loading over http; pass tf.io.http(url, options) as the model source to use it',
    });
  }
  const tsge = options.tsge ?? {};
  for (const key of Object.keys(tsge)) {
    if (!TSGE_OPTIONS.includes(key))
      throw TsgeError.of('TSGE-E8304', { option: `tsge.${key}`, reason: `unknown; tsge's options are ${TSGE_OPTIONS.join(', ')}` });
  }
  return tsge;
}
