import type { ParserV1 } from '@tsge/metadef';
import { parseOnnx } from './parse-model.js';
import { sniffOnnx } from './sniff.js';

/** The ONNX parser plugin (GE framework 5). */
export const onnxParser: ParserV1 = {
  specVersion: 'v1',
  name: 'onnx',
  framework: 5,
  extensions: ['.onnx'],
  sniff: sniffOnnx,
  parse: parseOnnx,
};
