// @tsge/parser-tflite public API.
export { tfliteParser, TFLITE_FRAMEWORK } from './parser.js';
export { parseTflite } from './parse-model.js';
export { sniffTflite } from './sniff.js';
export { tfliteIo, type TfliteIoInfo } from './io-info.js';
