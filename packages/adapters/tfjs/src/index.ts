// @tsge/adapter-tfjs: TensorFlow.js's loadGraphModel/loadLayersModel with tsge compiling and
// running the model underneath; models take and return tf.Tensors of the user's tfjs-core.
export { loadGraphModel, loadLayersModel, type LoadOptions, type TsgeModelOptions } from './load.js';
export type { GraphModel } from './graph-model.js';
export type { LayersModel, PredictArgs } from './layers-model.js';
export type { ModelInputs } from './model-core.js';
export type { ModelSource, SignatureJson } from './model-source.js';
export type { ModelTensorInfo } from './tensors.js';
export { TsgeError } from '@tsge/ge';
// Types this API names, so users can spell every signature by importing this package alone.
export type { CompileCacheOptions, Diagnostic, DiagnosticLocation, ErrorCatalog, ErrorCode, OptLevel, Severity } from '@tsge/ge';
