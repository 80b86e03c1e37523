import { defaultRegistries } from '@tsge/ge';
import { parseOnnx } from '@tsge/parser-onnx';
import type { FuzzCampaignV1 } from '../campaign.js';
import { mutateWire, shrinkWire } from '../mutate/protobuf-wire.js';
import { compileAndRun, graphOf, onnxSeedFiles, readSeeds } from './shared.js';

/**
 * The whole path on ONNX mutants that still decode as protobuf (field-level mutations only):
 * parse, compile, load and run on feeds made from the model's inputs.
 */
export const onnxRunCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'onnx-run',
  description: 'ONNX protobuf-field mutants: parse, compile, load (1 thread) and run',
  extension: '.onnx',
  seeds: async ({ testdata }) => readSeeds(await onnxSeedFiles(testdata), testdata),
  mutate: mutateWire,
  shrink: shrinkWire,
  async run(bytes) {
    const { ops } = defaultRegistries();
    await compileAndRun(graphOf(await parseOnnx({ bytes, path: 'fuzz.onnx' }, { extra: { ops } })));
  },
};
