// `import '@tsge/adapter-onnxruntime/register'`: makes 'tsge' an onnxruntime-common backend, so code
// written against onnxruntime-common runs with `executionProviders: ['tsge']`.
import { registerTsgeBackend } from './backend.js';

registerTsgeBackend();
