// @tsge/adapter-onnxruntime: onnxruntime's JavaScript API on tsge. The drop-in surface has
// onnxruntime-node's names (InferenceSession, Tensor, env, ...: onnxruntime-common's own, with
// sessions routed to tsge); the backend plugs tsge into onnxruntime-common by name.
export * from 'onnxruntime-common';
export { InferenceSession } from './inference-session.js';
export { TSGE_BACKEND_NAME, registerTsgeBackend, tsgeBackend } from './backend.js';
export type { TsgeSessionOptions } from './session-options.js';
export type { DropInValue, TsgeTensorValue } from './tensors.js';
export { TsgeError } from '@tsge/ge';
// Types this API names, so users can spell every signature by importing this package alone.
export type { CompileCacheOptions, Diagnostic, DiagnosticLocation, ErrorCatalog, ErrorCode, Severity } from '@tsge/ge';
