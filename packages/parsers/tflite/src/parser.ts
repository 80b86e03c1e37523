import type { ParserV1 } from '@tsge/metadef';
import { parseTflite } from './parse-model.js';
import { sniffTflite } from './sniff.js';

/**
 * Framework number of TFLite. GE's framework numbers are 0 Caffe, 1 MindSpore, 3 TensorFlow,
 * 4 Android NN and 5 ONNX; TFLite has none in GE, so tsge gives it 20, clear of GE's range.
 */
export const TFLITE_FRAMEWORK = 20;

/** The TFLite parser plugin. */
export const tfliteParser: ParserV1 = {
  specVersion: 'v1',
  name: 'tflite',
  framework: TFLITE_FRAMEWORK,
  extensions: ['.tflite'],
  sniff: sniffTflite,
  parse: parseTflite,
};
