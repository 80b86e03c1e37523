// @tsge/parser-tensorflow public API.
// tensorflowParser first: GE framework 3 lookups take the first parser with that number
export { tensorflowParser, tfjsParser } from './parser.js';
export { parseTensorflow } from './parse-graphdef.js';
export { sniffGraphDef } from './sniff.js';
export { parseTfjs, sniffTfjs } from './tfjs/model-json.js';
export { supportedTfOps } from './ops/index.js';
