import { loadModel } from '@tsge/executor';
import type { FuzzCampaignV1 } from '../campaign.js';
import { mutateBytes, shrinkBytes } from '../mutate/bytes.js';
import { mutateJsonText } from '../mutate/json.js';
import { mutateWire } from '../mutate/protobuf-wire.js';
import { type OmParts, fixChecksum, joinOm, partitionType, splitOm } from '../om-layout.js';
import type { Rng } from '../rng.js';
import { omSeeds } from './om-seeds.js';
import { runOnce } from './shared.js';

/** Loads (1 thread, no opt-ins) and runs an `.om` as a user's program would. */
async function loadAndRun(bytes: Uint8Array): Promise<void> {
  await runOnce(await loadModel(bytes, { threads: 1 }));
}

/** Raw mutations of whole `.om` files: mostly the header, table and checksum checks answer. */
export const omRawCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'om-raw',
  description: '.om files of real models, raw byte mutations, loaded and run',
  extension: '.om',
  seeds: async ({ testdata }) => omSeeds(testdata),
  mutate: mutateBytes,
  shrink: shrinkBytes,
  run: loadAndRun,
};

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** One edit inside a partition, then the layout and checksum made right again. */
function mutatePartitions(bytes: Uint8Array, rng: Rng): Uint8Array {
  let om: OmParts;
  try {
    om = splitOm(bytes);
  } catch {
    return mutateBytes(bytes, rng);
  }
  const find = (type: number) => om.parts.find((p) => p.type === type);
  const roll = rng.int(100);
  const json = roll < 45 ? find(partitionType('TASK_INFO')) : roll < 75 ? find(partitionType('IO_INFO')) : undefined;
  if (json) {
    try {
      json.bytes = encoder.encode(mutateJsonText(decoder.decode(json.bytes), rng));
    } catch {
      json.bytes = mutateBytes(json.bytes, rng); // an earlier step left text that is not JSON
    }
    return joinOm(om);
  }
  const target =
    roll < 88
      ? find(partitionType('MODEL_DEF'))
      : roll < 93
        ? find(partitionType('WEIGHTS'))
        : roll < 96
          ? find(partitionType('KERNELS'))
          : undefined;
  if (target) {
    target.bytes = target.type === partitionType('MODEL_DEF') ? mutateWire(target.bytes, rng) : mutateBytes(target.bytes, rng);
    return joinOm(om);
  }
  // the header (name, target, flags, version) with the checksum fixed
  const out = mutateBytes(bytes.subarray(0, 256), rng);
  const whole = bytes.slice();
  whole.set(out.subarray(0, Math.min(out.length, 256)));
  fixChecksum(whole);
  return whole;
}

/** Edits behind a valid checksum: TASK_INFO/IO_INFO JSON, MODEL_DEF fields, weights, kernels, header. */
export const omFixedCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'om-fixed',
  description: '.om files with TASK_INFO/IO_INFO JSON edits and partition mutations, checksum fixed, loaded and run',
  extension: '.om',
  seeds: async ({ testdata }) => omSeeds(testdata),
  mutate: mutatePartitions,
  run: loadAndRun,
};
