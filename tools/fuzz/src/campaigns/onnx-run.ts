import { defaultRegistries } from '@tsge/ge';
import { TsgeError } from '@tsge/metadef';
import { parseOnnx } from '@tsge/parser-onnx';
import type { FuzzCampaignV1 } from '../campaign.js';
import { mutateWire, shrinkWire } from '../mutate/protobuf-wire.js';
import { compileAndRun, onnxSeedFiles, readSeeds, throwIfErrors } from './shared.js';

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
    const parsed = await parseOnnx({ bytes, path: 'fuzz.onnx' }, { extra: { ops } });
    throwIfErrors(parsed.diagnostics);
    if (!parsed.graph) throw TsgeError.of('TSGE-E3003', { reason: 'no graph' });
    await compileAndRun(parsed.graph);
  },
};
