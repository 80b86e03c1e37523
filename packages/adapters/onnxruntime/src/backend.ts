import type { Backend } from 'onnxruntime-common';
import { registerBackend } from 'onnxruntime-common';
import { createSessionHandler } from './session-handler.js';

/** The execution provider name code passes in `executionProviders: ['tsge']`. */
export const TSGE_BACKEND_NAME = 'tsge';

/** An onnxruntime-common backend that compiles and runs models with tsge. */
export const tsgeBackend: Backend = {
  async init() {},
  createInferenceSessionHandler: (uriOrBuffer, options) => createSessionHandler(uriOrBuffer, options),
};

/**
 * Registers the backend with onnxruntime-common as 'tsge' (and, with `asCpu`, also as 'cpu', so
 * code that names the CPU provider runs on tsge). Priority as in onnxruntime: higher wins when a
 * session names no provider; the default 0 never outranks onnxruntime-node's own 'cpu' (100).
 */
export function registerTsgeBackend(options: { readonly priority?: number; readonly asCpu?: boolean } = {}): void {
  registerBackend(TSGE_BACKEND_NAME, tsgeBackend, options.priority ?? 0);
  if (options.asCpu) registerBackend('cpu', tsgeBackend, options.priority ?? 0);
}
