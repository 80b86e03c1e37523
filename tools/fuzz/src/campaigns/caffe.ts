// The Caffe reader: deploy prototxts alone, LeNet's prototxt with its trained caffemodel (the
// `weights` option), the caffemodel alone, and small nets through initializeCaffemodel (the
// fillers). A bundle's first part says what is run: `deploy.prototxt`, `initialize.prototxt` or
// `net.caffemodel`; a `weights.caffemodel` part is passed as the weights.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultRegistries } from '@tsge/ge';
import { initializeCaffemodel, parseCaffe, sniffCaffe } from '@tsge/parser-caffe';
import type { FuzzCampaignV1, FuzzSeed } from '../campaign.js';
import type { Rng } from '../rng.js';
import { mutateBytes } from '../mutate/bytes.js';
import { mutateWire, shrinkWire } from '../mutate/protobuf-wire.js';
import { mutateText, shrinkText } from '../mutate/text.js';
import { SSD_PROTOTXT } from './caffe-ssd-seed.js';
import { type BundlePart, mutateBundle, readBundle, shrinkBundle, writeBundle } from './bundle.js';
import { throwIfErrors } from './shared.js';

const BVLC = [
  'bvlc_alexnet.deploy',
  'bvlc_googlenet.deploy',
  'bvlc_reference_caffenet.deploy',
  'finetune_flickr_style.deploy',
  'lenet_train_test',
];
/** Nets small enough to fill every blob in a case. */
const INITIALIZE = ['models/caffe/bvlc/cifar10_quick.prototxt', 'models/caffe/lenet/lenet.prototxt'];

const isText = (name: string): boolean => name.endsWith('.prototxt');
const mutateBinary = (bytes: Uint8Array, rng: Rng): Uint8Array => (rng.chance(0.3) ? mutateBytes(bytes, rng) : mutateWire(bytes, rng));

export const caffeCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'caffe',
  description:
    'Caffe prototxt (alone, with a caffemodel, through initializeCaffemodel) and caffemodel files, text and protobuf mutations, through sniffCaffe and parseCaffe',
  extension: '.bundle',
  async seeds({ testdata }) {
    const read = async (rel: string) => new Uint8Array(await readFile(path.join(testdata, rel)));
    const one = async (rel: string, as: string): Promise<FuzzSeed> => ({
      name: rel,
      bytes: writeBundle([{ name: as, bytes: await read(rel) }]),
    });
    const lenet = 'models/caffe/lenet/lenet.prototxt';
    const weights = 'models/caffe/lenet/lenet_iter_10000.caffemodel';
    const seeds: FuzzSeed[] = [];
    for (const name of BVLC) seeds.push(await one(`models/caffe/bvlc/${name}.prototxt`, 'deploy.prototxt'));
    for (const rel of INITIALIZE) seeds.push(await one(rel, 'initialize.prototxt'));
    seeds.push(await one(weights, 'net.caffemodel'));
    seeds.push({
      name: `${lenet} + ${path.basename(weights)}`,
      bytes: writeBundle([
        { name: 'deploy.prototxt', bytes: await read(lenet) },
        { name: 'weights.caffemodel', bytes: await read(weights) },
      ]),
    });
    // SSD: structure with filled weights, and the full parse with weights drawn once here
    const ssd = new TextEncoder().encode(SSD_PROTOTXT);
    seeds.push({ name: 'ssd (initialize)', bytes: writeBundle([{ name: 'initialize.prototxt', bytes: ssd }]) });
    const ssdWeights = (await initializeCaffemodel(ssd, { seed: 1 })).caffemodel;
    if (!ssdWeights) throw new Error('the SSD seed does not initialise');
    seeds.push({
      name: 'ssd + weights',
      bytes: writeBundle([
        { name: 'deploy.prototxt', bytes: ssd },
        { name: 'weights.caffemodel', bytes: ssdWeights },
      ]),
    });
    return seeds;
  },
  mutate: (bytes, rng) => mutateBundle(bytes, rng, (name) => (isText(name) ? mutateText : mutateBinary)),
  shrink: (bytes) => shrinkBundle(bytes, (name) => (isText(name) ? shrinkText : shrinkWire)),
  async run(bytes) {
    const parts = readBundle(bytes);
    const [net] = parts;
    if (!net) throw new Error('empty bundle');
    const weights = parts.find((p: BundlePart) => p.name === 'weights.caffemodel')?.bytes;
    const file = net.name === 'net.caffemodel' ? 'fuzz.caffemodel' : 'fuzz.prototxt';
    sniffCaffe(net.bytes, file);
    if (net.name === 'initialize.prototxt') {
      throwIfErrors((await initializeCaffemodel(net.bytes)).diagnostics);
      return;
    }
    const extra = { ops: defaultRegistries().ops, ...(weights ? { weights } : {}) };
    throwIfErrors((await parseCaffe({ bytes: net.bytes, path: file }, { extra })).diagnostics);
  },
};
