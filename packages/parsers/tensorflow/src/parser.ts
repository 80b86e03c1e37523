import { type ParserV1, diagnostic } from '@tsge/metadef';
import { parseTensorflow } from './parse-graphdef.js';
import { looksLikeSavedModel, parseSavedModel } from './saved_model/parse-saved-model.js';
import { sniffGraphDef } from './sniff.js';
import { parseTfjs, sniffTfjs } from './tfjs/model-json.js';

/**
 * The TensorFlow parser plugin (GE framework 3): frozen GraphDef `.pb` / `.pbtxt`, and a TF2
 * SavedModel's `saved_model.pb` with its `variables/` (option `extra.signature`, default serving_default).
 */
export const tensorflowParser: ParserV1 = {
  specVersion: 'v1',
  name: 'tensorflow',
  framework: 3,
  extensions: ['.pb', '.pbtxt'],
  sniff: sniffGraphDef,
  parse: async (input, options) => {
    if (looksLikeSavedModel(input.bytes, input.path)) return parseSavedModel(input, options);
    const signature = options?.extra?.signature;
    if (signature !== undefined)
      return {
        graph: undefined,
        diagnostics: [
          diagnostic(
            'TSGE-E3122',
            { signature: String(signature), reason: 'only SavedModels have signatures; this is a frozen GraphDef' },
            { ...(input.path !== undefined ? { file: input.path } : {}), option: 'signature' },
          ),
        ],
      };
    return parseTensorflow(input, options);
  },
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
