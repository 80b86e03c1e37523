import { defaultRegistries } from '@tsge/ge';
import { parseOnnx } from '@tsge/parser-onnx';
import type { FuzzCampaignV1 } from '../campaign.js';
import { mutateBytes } from '../mutate/bytes.js';
import { mutateWire, shrinkWire } from '../mutate/protobuf-wire.js';
import { onnxSeedFiles, readSeeds, throwIfErrors } from './shared.js';

/** The ONNX reader: raw and protobuf-structural mutants of real ONNX files, parsed. */
export const onnxParseCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'onnx-parse',
  description: 'ONNX files (raw and protobuf-field mutations) through parseOnnx',
  extension: '.onnx',
  seeds: async ({ testdata }) => readSeeds(await onnxSeedFiles(testdata), testdata),
  mutate: (bytes, rng) => (rng.chance(0.35) ? mutateBytes(bytes, rng) : mutateWire(bytes, rng)),
  shrink: shrinkWire,
  async run(bytes) {
    // from bytes alone: external data a mutant names is refused, never read
    const result = await parseOnnx({ bytes, path: 'fuzz.onnx' }, { extra: { ops: defaultRegistries().ops } });
    throwIfErrors(result.diagnostics);
  },
};
