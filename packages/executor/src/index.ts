// @tsge/executor public API: load an .om model and run it on the CPU device.
export { loadModel } from './load-model.js';
export { openModel } from './open-model.js';
export type {
  Executor,
  ExecutionMode,
  Feed,
  LoadModelOptions,
  RunOptions,
  TensorLike,
  TensorMetadata,
  ChromeTrace,
  TraceEvent,
} from './options.js';
