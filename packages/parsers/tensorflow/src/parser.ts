import type { ParserV1 } from '@tsge/metadef';
import { parseTensorflow } from './parse-graphdef.js';
import { sniffGraphDef } from './sniff.js';
import { parseTfjs, sniffTfjs } from './tfjs/model-json.js';

/** The TensorFlow parser plugin (GE framework 3): frozen GraphDef `.pb` / `.pbtxt`. */
export const tensorflowParser: ParserV1 = {
  specVersion: 'v1',
  name: 'tensorflow',
  framework: 3,
  extensions: ['.pb', '.pbtxt'],
  sniff: sniffGraphDef,
  parse: parseTensorflow,
};

/** The TensorFlow.js parser plugin: `model.json` graph and layers models with their weight shards. */
export const tfjsParser: ParserV1 = {
  specVersion: 'v1',
  name: 'tfjs',
  framework: 3,
  extensions: ['.json'],
  sniff: sniffTfjs,
  parse: parseTfjs,
};
