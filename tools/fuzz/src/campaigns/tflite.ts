// The TFLite reader (flatbuffers: byte mutations) and the whole path on its mutants. Seeds: the
// Coral test models (quantized MobileNet v1, DeepLab v3, an LSTM, split/concat, and the model
// that must fail cleanly); MobileNet v2 (3.6 MB) is above the seed size limit.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { defaultRegistries } from '@tsge/ge';
import { type Graph, TsgeError } from '@tsge/metadef';
import { decodeTflite, parseTflite, sniffTflite } from '@tsge/parser-tflite';
import type { FuzzCampaignV1 } from '../campaign.js';
import { mutateBytes, shrinkBytes } from '../mutate/bytes.js';
import { compileAndRun, readSeeds, throwIfErrors } from './shared.js';

async function parseFlatbuffer(bytes: Uint8Array): Promise<Graph> {
  sniffTflite(bytes, 'fuzz.tflite');
  decodeTflite(bytes, 'fuzz.tflite');
  const parsed = await parseTflite({ bytes, path: 'fuzz.tflite' }, { extra: { ops: defaultRegistries().ops } });
  throwIfErrors(parsed.diagnostics);
  if (!parsed.graph) throw TsgeError.of('TSGE-E3003', { reason: 'no graph' });
  return parsed.graph;
}

export const tfliteCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'tflite',
  description: 'TFLite flatbuffers, byte mutations, through sniffTflite, decodeTflite and parseTflite',
  extension: '.tflite',
  async seeds({ testdata }) {
    const dir = path.join(testdata, 'models/tflite/coral');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.tflite')).sort();
    return readSeeds(
      files.map((f) => path.join(dir, f)),
      testdata,
    );
  },
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
