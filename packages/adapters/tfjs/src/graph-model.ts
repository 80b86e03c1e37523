import type * as tf from '@tensorflow/tfjs-core';
import { type ModelCore, type ModelInputs, modelVersionOf } from './model-core.js';
import type { SignatureJson } from './model-source.js';
import { type ModelTensorInfo, tensorInfoOf } from './tensors.js';

/**
 * TensorFlow.js's GraphModel surface, run by tsge. `execute` and `predict` are synchronous, as in
 * tfjs: they run the whole model on the calling thread without worker threads
 * (`InferenceSession.runSync`); `executeAsync`/`predictAsync` use every core. `outputs` may name
 * any graph node (`node` or `node:index`): the model is compiled once for each such set of
 * outputs, asynchronously, so a new set goes through `executeAsync` first (else TSGE-E8313).
 */
export interface GraphModel {
  /** `producer.minConsumer` of the GraphDef, as tfjs reports it. */
  readonly modelVersion: string;
  /** Input names as tfjs spells them: signature keys where the model has a signature, else node names. */
  readonly inputNodes: string[];
  readonly outputNodes: string[];
  readonly inputs: ModelTensorInfo[];
  readonly outputs: ModelTensorInfo[];
  /** The model.json's `userDefinedMetadata`. */
  readonly metadata: Record<string, unknown> | undefined;
  readonly modelSignature: SignatureJson | undefined;
  readonly modelStructuredOutputKeys: readonly string[] | undefined;
  predict(inputs: ModelInputs, config?: tf.ModelPredictConfig): tf.Tensor | tf.Tensor[] | tf.NamedTensorMap;
  predictAsync(inputs: ModelInputs, config?: tf.ModelPredictConfig): Promise<tf.Tensor | tf.Tensor[] | tf.NamedTensorMap>;
  execute(inputs: ModelInputs, outputs?: string | string[]): tf.Tensor | tf.Tensor[];
  executeAsync(inputs: ModelInputs, outputs?: string | string[]): Promise<tf.Tensor | tf.Tensor[]>;
  /** Frees the compiled model; runs after it are TSGE-E8311. */
  dispose(): void;
  /** `dispose()`, settling when tsge has freed the model's memory and workers (tsge's own). */
  release(): Promise<void>;
}

export function createGraphModel(core: ModelCore): GraphModel {
  const { json } = core;
  const structuredOutputKeys = json.userDefinedMetadata?.structuredOutputKeys;
  const named = (tensors: tf.Tensor | tf.Tensor[]): tf.Tensor | tf.Tensor[] | tf.NamedTensorMap => {
    if (!structuredOutputKeys) return tensors;
    const list = Array.isArray(tensors) ? tensors : [tensors];
    return Object.fromEntries(list.map((t, i) => [structuredOutputKeys[i] as string, t]));
  };
  const single = (results: tf.Tensor[]): tf.Tensor | tf.Tensor[] => (results.length > 1 ? results : (results[0] as tf.Tensor));
  const executeAsync = async (inputs: ModelInputs, outputs?: string | string[]): Promise<tf.Tensor | tf.Tensor[]> =>
    single(await core.run(inputs, core.resolveOutputs(outputs)));
  const execute = (inputs: ModelInputs, outputs?: string | string[]): tf.Tensor | tf.Tensor[] =>
    single(core.runSync(inputs, core.resolveOutputs(outputs)));
  return {
    modelVersion: modelVersionOf(json),
    get inputNodes() {
      return [...core.inputNodes];
    },
    get outputNodes() {
      return [...core.outputNodes];
    },
    get inputs() {
      return core.inputMetadata.map((m) => tensorInfoOf(m));
    },
    get outputs() {
      return core.outputMetadata.map((m) => tensorInfoOf(m));
    },
    metadata: json.userDefinedMetadata,
    modelSignature: json.userDefinedMetadata?.signature ?? json.signature,
    modelStructuredOutputKeys: structuredOutputKeys,
    predict: (inputs) => named(execute(inputs, core.outputNodes as string[])),
    predictAsync: async (inputs) => named(await executeAsync(inputs, core.outputNodes as string[])),
    execute,
    executeAsync,
    dispose() {
      // tfjs's dispose is synchronous; the release finishes in the background (await release() to wait)
      core.release().catch(() => undefined);
    },
    release: () => core.release(),
  };
}
