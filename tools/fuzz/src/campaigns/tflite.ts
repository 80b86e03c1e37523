// The TFLite reader (flatbuffers: byte mutations) and the whole path on its mutants. Seeds: the
// Coral test models (quantized MobileNet v1, DeepLab v3, an LSTM, split/concat, and the model
// that must fail cleanly); MobileNet v2 (3.6 MB) is above the seed size limit.
import { defaultRegistries } from '@tsge/ge';
import type { Graph } from '@tsge/metadef';
import { decodeTflite, parseTflite, sniffTflite } from '@tsge/parser-tflite';
import type { FuzzCampaignV1 } from '../campaign.js';
import { mutateBytes, shrinkBytes } from '../mutate/bytes.js';
import { compileAndRun, graphOf, seedsIn } from './shared.js';

async function parseFlatbuffer(bytes: Uint8Array): Promise<Graph> {
  sniffTflite(bytes, 'fuzz.tflite');
  decodeTflite(bytes, 'fuzz.tflite');
  return graphOf(await parseTflite({ bytes, path: 'fuzz.tflite' }, { extra: { ops: defaultRegistries().ops } }));
}

export const tfliteCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'tflite',
  description: 'TFLite flatbuffers, byte mutations, through sniffTflite, decodeTflite and parseTflite',
  extension: '.tflite',
  seeds: ({ testdata }) => seedsIn(testdata, 'models/tflite/coral', '.tflite'),
  mutate: mutateBytes,
  shrink: shrinkBytes,
  async run(bytes) {
    await parseFlatbuffer(bytes);
  },
};

export const tfliteRunCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'tflite-run',
  description: 'TFLite byte mutants: parse, compile, load (1 thread) and run',
  extension: '.tflite',
  // DeepLab at 513x513 takes longer than a case's timeout to run in the reference kernels
  seeds: async (context) => (await tfliteCampaign.seeds(context)).filter((s) => !s.name.includes('deeplab')),
  mutate: mutateBytes,
  shrink: shrinkBytes,
  async run(bytes) {
    await compileAndRun(await parseFlatbuffer(bytes));
  },
};
