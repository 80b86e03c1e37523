import type { ParserV1 } from '@tsge/metadef';
import { parseTensorflow } from './parse-graphdef.js';
import { sniffGraphDef } from './sniff.js';

/** The TensorFlow parser plugin (GE framework 3): frozen GraphDef `.pb` / `.pbtxt`. */
export const tensorflowParser: ParserV1 = {
  specVersion: 'v1',
  name: 'tensorflow',
  framework: 3,
  extensions: ['.pb', '.pbtxt'],
  sniff: sniffGraphDef,
  parse: parseTensorflow,
};
