// @tsge/parser-tflite public API.
export { tfliteParser, TFLITE_FRAMEWORK } from './parser.js';
export { parseTflite, type TfliteParseExtra } from './parse-model.js';
export { sniffTflite } from './sniff.js';
export { tfliteIo, decodeTflite, type TfliteIoInfo } from './io-info.js';
export type {
  TfliteModel,
  TfliteSubgraph,
  TfliteTensor,
  TfliteOperator,
  TfliteOpcode,
  TfliteQuantization,
  TfliteType,
  OptionsTable,
} from './schema/model.js';
