import { TsgeError } from '@tsge/ge';
import * as tf from '@tensorflow/tfjs-core';
import type { ModelCore, ModelInputs } from './model-core.js';
import { type ModelTensorInfo, tensorInfoOf } from './tensors.js';

/** tfjs's `predict` arguments; `batchSize` splits the run as tfjs does, `verbose` has no effect (tfjs logs nothing either). */
export interface PredictArgs {
  readonly batchSize?: number;
  readonly verbose?: boolean;
}

/**
 * TensorFlow.js's LayersModel surface for inference, run by tsge. `predict`, `predictOnBatch` and
 * `execute` are synchronous in tfjs; tsge's runs are asynchronous, so they throw TSGE-E8301 naming
 * `predictAsync`/`executeAsync`. Training (`fit`, `compile`, `evaluate`) is not offered.
 */
export interface LayersModel {
  /** Inputs as tfjs's SymbolicTensors describe them: unknown dimensions are `null`. */
  readonly inputs: ModelTensorInfo[];
  readonly outputs: ModelTensorInfo[];
  readonly inputNames: string[];
  readonly outputNames: string[];
  readonly inputNodes: string[];
  readonly outputNodes: string[];
  predict(x: tf.Tensor | tf.Tensor[], args?: PredictArgs): never;
  predictOnBatch(x: tf.Tensor | tf.Tensor[]): never;
  execute(inputs: ModelInputs, outputs?: string | string[]): never;
  predictAsync(x: tf.Tensor | tf.Tensor[], args?: PredictArgs): Promise<tf.Tensor | tf.Tensor[]>;
  executeAsync(inputs: ModelInputs, outputs?: string | string[]): Promise<tf.Tensor | tf.Tensor[]>;
  /** Frees the compiled model; runs after it are TSGE-E8311. */
  dispose(): void;
  /** `dispose()`, settling when tsge has freed the model's memory and workers (tsge's own). */
  release(): Promise<void>;
}

export function createLayersModel(core: ModelCore): LayersModel {
  const single = (results: tf.Tensor[]): tf.Tensor | tf.Tensor[] => (results.length > 1 ? results : (results[0] as tf.Tensor));
  const sync = (method: string, instead: string) => (): never => {
    throw TsgeError.of('TSGE-E8301', { method: `LayersModel.${method}()`, instead: `model.${instead}()` });
  };
  return {
    get inputs() {
      return core.inputMetadata.map((m) => tensorInfoOf(m, null));
    },
    get outputs() {
      return core.outputMetadata.map((m) => tensorInfoOf(m, null));
    },
    get inputNames() {
      return [...core.inputNodes];
    },
    get outputNames() {
      return [...core.outputNodes];
    },
    get inputNodes() {
      return [...core.inputNodes];
    },
    get outputNodes() {
      return [...core.outputNodes];
    },
    predict: sync('predict', 'predictAsync'),
    predictOnBatch: sync('predictOnBatch', 'predictAsync'),
    execute: sync('execute', 'executeAsync'),
    predictAsync: async (x, args = {}) => single(await predictInBatches(core, x, args)),
    executeAsync: async (inputs, outputs) => single(await core.run(inputs, core.resolveOutputs(outputs))),
    dispose() {
      core.release().catch(() => undefined);
    },
    release: () => core.release(),
  };
}

/** tfjs's predict: the inputs cut into batches of `batchSize` along axis 0, outputs joined again. */
async function predictInBatches(core: ModelCore, x: tf.Tensor | tf.Tensor[], args: PredictArgs): Promise<tf.Tensor[]> {
  const { batchSize } = args;
  if (batchSize !== undefined && (!Number.isSafeInteger(batchSize) || batchSize < 1))
    throw TsgeError.of('TSGE-E8304', { option: 'batchSize', reason: `must be a positive integer, got ${String(batchSize)}` });
  const outputs = core.resolveOutputs(undefined);
  const list = Array.isArray(x) ? x : [x];
  const rows = list[0]?.shape[0];
  if (batchSize === undefined || rows === undefined || rows <= batchSize) return core.run(x, outputs);
  if (list.some((t) => t.shape[0] !== rows)) {
    throw TsgeError.of('TSGE-E8309', { input: '(all)', reason: 'All input Tensors (x) should have the same number of samples.' });
  }
  const parts: tf.Tensor[][] = [];
  try {
    for (let start = 0; start < rows; start += batchSize) {
      const size = Math.min(batchSize, rows - start);
      const batch = list.map((t) => tf.slice(t, [start], [size]));
      try {
        parts.push(await core.run(batch, outputs));
      } finally {
        tf.dispose(batch);
      }
    }
    return outputs.map((_, i) =>
      tf.concat(
        parts.map((p) => p[i] as tf.Tensor),
        0,
      ),
    );
  } finally {
    tf.dispose(parts.flat());
  }
}
