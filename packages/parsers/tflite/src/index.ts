// @tsge/parser-tflite public API.
export { tfliteParser, TFLITE_FRAMEWORK } from './parser.js';
export { parseTflite, type TfliteParseExtra } from './parse-model.js';
export { sniffTflite } from './sniff.js';
export { tfliteIo, type TfliteIoInfo } from './io-info.js';
export {
  readTfliteModel,
  type TfliteModel,
  type TfliteSubgraph,
  type TfliteTensor,
  type TfliteOperator,
  type TfliteOpcode,
  type TfliteQuantization,
  type TfliteType,
  type OptionsTable,
} from './schema/model.js';
