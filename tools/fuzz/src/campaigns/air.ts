import { defaultRegistries } from '@tsge/ge';
import { parseAir, serializeAir } from '@tsge/metadef';
import { parseOnnx } from '@tsge/parser-onnx';
import type { FuzzCampaignV1, FuzzSeed } from '../campaign.js';
import { mutateBytes } from '../mutate/bytes.js';
import { mutateWire, shrinkWire } from '../mutate/protobuf-wire.js';
import { every, onnxSeedFiles, readSeeds, throwIfErrors } from './shared.js';

/** The `.air` reader: real models written as `.air` by tsge, mutated, read back. */
export const airCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'air',
  description: '.air files (real ONNX models serialized as ge.proto.ModelDef), raw and protobuf-field mutations, through parseAir',
  extension: '.air',
  async seeds({ testdata }) {
    const onnx = await readSeeds(every(await onnxSeedFiles(testdata), 4), testdata);
    const { ops } = defaultRegistries();
    const seeds: FuzzSeed[] = [];
    for (const seed of onnx) {
      const parsed = await parseOnnx({ bytes: seed.bytes, path: seed.name }, { extra: { ops } }).catch(() => undefined);
      if (parsed?.graph) seeds.push({ name: `${seed.name}.air`, bytes: serializeAir(parsed.graph) });
    }
    return seeds;
  },
  mutate: (bytes, rng) => (rng.chance(0.3) ? mutateBytes(bytes, rng) : mutateWire(bytes, rng)),
  shrink: shrinkWire,
  async run(bytes) {
    throwIfErrors(parseAir(bytes, { fileName: 'fuzz.air' }).diagnostics);
  },
};
