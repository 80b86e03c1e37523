// @tsge/parser-tensorflow public API.
export { tensorflowParser } from './parser.js';
export { parseTensorflow } from './parse-graphdef.js';
export { sniffGraphDef } from './sniff.js';
export { supportedTfOps } from './ops/index.js';
