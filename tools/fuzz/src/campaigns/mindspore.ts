// The MindSpore readers: MindIR files (real ones from MindSpore's tests, one encrypted) and GE
// `.air` files as MindSpore exports them (real ONNX models written as ge.proto ModelDef, as the
// `air` campaign makes them), raw and protobuf-field mutations.
import { defaultRegistries } from '@tsge/ge';
import { parseMindir, parseMindsporeAir, sniffMindspore } from '@tsge/parser-mindspore';
import type { FuzzCampaignV1 } from '../campaign.js';
import { mutateBytes } from '../mutate/bytes.js';
import { mutateWire, shrinkWire } from '../mutate/protobuf-wire.js';
import { airCampaign } from './air.js';
import { seedsIn, throwIfErrors } from './shared.js';

export const mindirCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'mindir',
  description: 'MindIR files, raw and protobuf-field mutations, through sniffMindspore and parseMindir',
  extension: '.mindir',
  seeds: ({ testdata }) => seedsIn(testdata, 'models/mindspore', '.mindir'),
  mutate: (bytes, rng) => (rng.chance(0.3) ? mutateBytes(bytes, rng) : mutateWire(bytes, rng)),
  shrink: shrinkWire,
  async run(bytes) {
    sniffMindspore(bytes, 'fuzz.mindir');
    throwIfErrors((await parseMindir({ bytes, path: 'fuzz.mindir' }, { extra: { ops: defaultRegistries().ops } })).diagnostics);
  },
};

export const mindsporeAirCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'mindspore-air',
  description:
    'GE .air files (real models as ge.proto ModelDef), raw and protobuf-field mutations, through sniffMindspore and parseMindsporeAir',
  extension: '.air',
  seeds: airCampaign.seeds,
  mutate: airCampaign.mutate,
  shrink: shrinkWire,
  async run(bytes) {
    sniffMindspore(bytes, 'fuzz.air');
    throwIfErrors((await parseMindsporeAir({ bytes, path: 'fuzz.air' }, { extra: { ops: defaultRegistries().ops } })).diagnostics);
  },
};
