import { TsgeError } from '@tsge/ge';
import * as tf from '@tensorflow/tfjs-core';
import type { ModelCore, ModelInputs, OutputRequest } from './model-core.js';
import { type ModelTensorInfo, tensorInfoOf } from './tensors.js';

/** tfjs's `predict` arguments; `batchSize` splits the run as tfjs does, `verbose` has no effect (tfjs logs nothing either). */
export interface PredictArgs {
  readonly batchSize?: number;
  readonly verbose?: boolean;
}

/**
 * TensorFlow.js's LayersModel surface for inference, run by tsge. `predict`, `predictOnBatch` and
 * `execute` are synchronous, as in tfjs: they run the whole model on the calling thread without
 * worker threads (`InferenceSession.runSync`); `predictAsync`/`executeAsync` (tsge's) use every
 * core. Training (`fit`, `compile`, `evaluate`) is not offered.
 */
export interface LayersModel {
  /** Inputs as tfjs's SymbolicTensors describe them: tfjs's tensor names, unknown dimensions `null`. */
  readonly inputs: ModelTensorInfo[];
  readonly outputs: ModelTensorInfo[];
  readonly inputNames: string[];
  readonly outputNames: string[];
  readonly inputNodes: string[];
  readonly outputNodes: string[];
  predict(x: tf.Tensor | tf.Tensor[], args?: PredictArgs): tf.Tensor | tf.Tensor[];
  predictOnBatch(x: tf.Tensor | tf.Tensor[]): tf.Tensor | tf.Tensor[];
  execute(inputs: ModelInputs, outputs?: string | string[]): tf.Tensor | tf.Tensor[];
  predictAsync(x: tf.Tensor | tf.Tensor[], args?: PredictArgs): Promise<tf.Tensor | tf.Tensor[]>;
  executeAsync(inputs: ModelInputs, outputs?: string | string[]): Promise<tf.Tensor | tf.Tensor[]>;
  /** Frees the compiled model; runs after it are TSGE-E8311. */
  dispose(): void;
  /** `dispose()`, settling when tsge has freed the model's memory and workers (tsge's own). */
  release(): Promise<void>;
}

export function createLayersModel(core: ModelCore): LayersModel {
  const single = (results: tf.Tensor[]): tf.Tensor | tf.Tensor[] => (results.length > 1 ? results : (results[0] as tf.Tensor));
  return {
    // named as tfjs names the SymbolicTensors (`<layer>_input`, `<layer>/<layer>`)
    get inputs() {
      return core.inputMetadata.map((m, i) => ({ ...tensorInfoOf(m, null), name: core.inputNodes[i] as string }));
    },
    get outputs() {
      return core.outputMetadata.map((m, i) => ({ ...tensorInfoOf(m, null), name: core.outputNodes[i] as string }));
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
    predict: (x, args = {}) => single(predictInBatches(core, x, args, (batch, outputs) => core.runSync(batch, outputs))),
    predictOnBatch: (x) => single(core.runSync(x, core.resolveOutputs(undefined))),
    execute: (inputs, outputs) => single(core.runSync(inputs, core.resolveOutputs(outputs))),
    predictAsync: async (x, args = {}) => single(await predictInBatchesAsync(core, x, args)),
    executeAsync: async (inputs, outputs) => single(await core.run(inputs, core.resolveOutputs(outputs))),
    dispose() {
      core.release().catch(() => undefined);
    },
    release: () => core.release(),
  };
}

/** tfjs's predict: the inputs cut into batches of `batchSize` along axis 0, outputs joined again. */
function predictInBatches(
  core: ModelCore,
  x: tf.Tensor | tf.Tensor[],
  args: PredictArgs,
  run: (batch: tf.Tensor[], outputs: OutputRequest) => tf.Tensor[],
): tf.Tensor[] {
  const outputs = core.resolveOutputs(undefined);
  const batches = batchesOf(x, args);
  if (batches === undefined) return run(Array.isArray(x) ? x : [x], outputs);
  const parts: tf.Tensor[][] = [];
  try {
    for (const slice of batches) {
      const batch = slice();
      try {
        parts.push(run(batch, outputs));
      } finally {
        tf.dispose(batch);
      }
    }
    return joined(parts);
  } finally {
    tf.dispose(parts.flat());
  }
}

/** `predictInBatches` with the asynchronous run, one batch after another. */
async function predictInBatchesAsync(core: ModelCore, x: tf.Tensor | tf.Tensor[], args: PredictArgs): Promise<tf.Tensor[]> {
  const outputs = core.resolveOutputs(undefined);
  const batches = batchesOf(x, args);
  if (batches === undefined) return core.run(x, outputs);
  const parts: tf.Tensor[][] = [];
  try {
    for (const slice of batches) {
      const batch = slice();
      try {
        parts.push(await core.run(batch, outputs));
      } finally {
        tf.dispose(batch);
      }
    }
    return joined(parts);
  } finally {
    tf.dispose(parts.flat());
  }
}

/** The batches `batchSize` cuts the inputs into (each sliced when asked for), or undefined for one run. */
function batchesOf(x: tf.Tensor | tf.Tensor[], args: PredictArgs): (() => tf.Tensor[])[] | undefined {
  const { batchSize } = args;
  if (batchSize !== undefined && (!Number.isSafeInteger(batchSize) || batchSize < 1))
    throw TsgeError.of('TSGE-E8304', { option: 'batchSize', reason: `must be a positive integer, got ${String(batchSize)}` });
  const list = Array.isArray(x) ? x : [x];
  const rows = list[0]?.shape[0];
  if (batchSize === undefined || rows === undefined || rows <= batchSize) return undefined;
  if (list.some((t) => t.shape[0] !== rows)) {
    throw TsgeError.of('TSGE-E8309', { input: '(all)', reason: 'All input Tensors (x) should have the same number of samples.' });
  }
  const batches: (() => tf.Tensor[])[] = [];
  for (let start = 0; start < rows; start += batchSize) {
    const size = Math.min(batchSize, rows - start);
    batches.push(() => list.map((t) => tf.slice(t, [start], [size])));
  }
  return batches;
}

function joined(parts: readonly tf.Tensor[][]): tf.Tensor[] {
  return (parts[0] ?? []).map((_, i) =>
    tf.concat(
      parts.map((p) => p[i] as tf.Tensor),
      0,
    ),
  );
}
