// The TF2 SavedModel reader: saved_model.pb (MetaGraphDef, signatures, function library) with its
// variables checkpoint (variables.index, a LevelDB table of BundleEntryProtos, and the data shard),
// as a bundle whose first part is saved_model.pb. saved_model.pb gets protobuf-field and byte
// mutations; variables.index byte mutations with, half the time, every block's crc32c repaired so
// the mutant reaches the table and entry decoding; the shard byte mutations. A mutant that parses
// is compiled and run. Seeds: the tiny SavedModels of ../shared/testdata (written by TensorFlow).
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { defaultRegistries } from '@tsge/ge';
import { TsgeError } from '@tsge/metadef';
import { crc32c, maskCrc, tensorflowParser } from '@tsge/parser-tensorflow';
import type { FuzzCampaignV1, FuzzSeed } from '../campaign.js';
import { mutateBytes, shrinkBytes } from '../mutate/bytes.js';
import { mutateWire, shrinkWire } from '../mutate/protobuf-wire.js';
import type { Rng } from '../rng.js';
import { type BundlePart, mutateBundle, readBundle, shrinkBundle, writeBundle } from './bundle.js';
import { compileAndRun, graphOf } from './shared.js';

const MODEL = 'saved_model.pb';
const INDEX = 'variables/variables.index';

/** A varint at `at` and the position after it, or undefined past `end`. */
function varint(bytes: Uint8Array, at: number, end: number): [number, number] | undefined {
  let value = 0;
  let scale = 1;
  for (let i = at; i < end && i < at + 10; i++) {
    const b = bytes[i] as number;
    value += (b & 0x7f) * scale;
    if ((b & 0x80) === 0) return [value, i + 1];
    scale *= 128;
  }
  return undefined;
}

/** Rewrites the masked crc32c after a block (LevelDB: block bytes, type byte, crc of both). */
function repairBlock(bytes: Uint8Array, offset: number, size: number): void {
  if (offset < 0 || offset + size + 5 > bytes.length) return;
  const crc = maskCrc(crc32c(bytes.subarray(offset, offset + size + 1)));
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(offset + size + 1, crc, true);
}

/** Repairs the checksums of the index block and the data blocks it points at; leaves a table it cannot walk as it is. */
export function repairTableChecksums(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  if (out.length < 48) return out;
  const footer = out.length - 48;
  const meta = varint(out, footer, out.length);
  const metaSize = meta && varint(out, meta[1], out.length);
  const index = metaSize && varint(out, metaSize[1], out.length);
  const indexSize = index && varint(out, index[1], out.length);
  if (!meta || !metaSize || !index || !indexSize) return out;
  const [indexOffset, size] = [index[0], indexSize[0]];
  if (indexOffset + size + 5 > out.length || size < 4) return out;
  // index entries: shared, unshared, value length, key suffix, value = data block handle
  const restarts = new DataView(out.buffer, out.byteOffset).getUint32(indexOffset + size - 4, true);
  const entriesEnd = indexOffset + size - 4 - 4 * restarts;
  let at = indexOffset;
  while (at < entriesEnd && entriesEnd <= indexOffset + size) {
    const shared = varint(out, at, entriesEnd);
    const unshared = shared && varint(out, shared[1], entriesEnd);
    const length = unshared && varint(out, unshared[1], entriesEnd);
    if (!length || !unshared) break;
    const valueAt = length[1] + unshared[0];
    const offset = varint(out, valueAt, entriesEnd);
    const blockSize = offset && varint(out, offset[1], entriesEnd);
    if (!offset || !blockSize) break;
    repairBlock(out, offset[0], blockSize[0]);
    at = valueAt + length[0];
  }
  repairBlock(out, meta[0], metaSize[0]);
  repairBlock(out, indexOffset, size);
  return out;
}

function mutatorOf(name: string): (bytes: Uint8Array, rng: Rng) => Uint8Array {
  if (name === MODEL) return (bytes, rng) => (rng.chance(0.3) ? mutateBytes(bytes, rng) : mutateWire(bytes, rng));
  if (name === INDEX) return (bytes, rng) => (rng.chance(0.5) ? repairTableChecksums(mutateBytes(bytes, rng)) : mutateBytes(bytes, rng));
  return mutateBytes;
}

async function savedModelSeeds(testdata: string): Promise<FuzzSeed[]> {
  const dir = path.join(testdata, 'models/tensorflow/saved_model');
  const seeds: FuzzSeed[] = [];
  for (const name of (await readdir(dir, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    const parts: BundlePart[] = [{ name: MODEL, bytes: new Uint8Array(await readFile(path.join(dir, name, MODEL))) }];
    for (const file of (await readdir(path.join(dir, name, 'variables'))).sort())
      parts.push({ name: `variables/${file}`, bytes: new Uint8Array(await readFile(path.join(dir, name, 'variables', file))) });
    seeds.push({ name: `models/tensorflow/saved_model/${name}`, bytes: writeBundle(parts) });
  }
  return seeds;
}

export const savedModelCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'tensorflow-saved-model',
  description:
    'TF2 SavedModels (saved_model.pb + variables.index + data shard): protobuf-field, byte and checksum-repaired table mutations, through the TensorFlow parser, then compile and run',
  extension: '.bundle',
  seeds: async ({ testdata }) => savedModelSeeds(testdata),
  mutate: (bytes, rng) => mutateBundle(bytes, rng, mutatorOf),
  shrink: (bytes) => shrinkBundle(bytes, (name) => (name === MODEL ? shrinkWire : shrinkBytes)),
  async run(bytes) {
    const [model, ...rest] = readBundle(bytes);
    if (!model) throw new Error('empty bundle');
    const files = new Map(rest.map((s) => [s.name, s.bytes]));
    // what ge's confined reader does for a missing file or a range past its end
    const readRelative = async (p: string): Promise<Uint8Array> => {
      const found = files.get(p);
      if (!found) throw TsgeError.of('TSGE-E3001', { reason: `${p}: no such file` }, { file: p });
      return found;
    };
    const readRange = async (p: string, offset: number, length: number): Promise<Uint8Array> => {
      const found = await readRelative(p);
      if (offset < 0 || length < 0 || offset + length > found.length)
        throw TsgeError.of('TSGE-E3001', { reason: `${p}: range ${offset}+${length} is past its end` }, { file: p });
      return found.slice(offset, offset + length);
    };
    tensorflowParser.sniff(model.bytes, MODEL);
    const parsed = await tensorflowParser.parse(
      { bytes: model.bytes, path: MODEL, readRelative, readRange },
      { extra: { ops: defaultRegistries().ops } },
    );
    await compileAndRun(graphOf(parsed));
  },
};
