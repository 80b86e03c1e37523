// The checksum repair the SavedModel campaign applies to mutated variables.index files: a table
// is left as it was, and a mutant of a data block gets past the block crc32c check.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { tensorflowParser } from '@tsge/parser-tensorflow';
import { describe, expect, it } from 'vitest';
import { repairTableChecksums } from './saved-model.js';

const dir = path.resolve(process.cwd(), '../shared/testdata/models/tensorflow/saved_model/times_three_float');
const read = (p: string) => new Uint8Array(readFileSync(path.join(dir, p)));

async function diagnosticsWith(index: Uint8Array): Promise<string> {
  const files = new Map([
    ['variables/variables.index', index],
    ['variables/variables.data-00000-of-00001', read('variables/variables.data-00000-of-00001')],
  ]);
  const readRelative = async (p: string) => files.get(p) ?? new Uint8Array(0);
  const result = await tensorflowParser.parse({
    bytes: read('saved_model.pb'),
    path: 'saved_model.pb',
    readRelative,
    readRange: async (p, offset, length) => (await readRelative(p)).slice(offset, offset + length),
  });
  return result.diagnostics.map((d) => d.message).join('\n');
}

describe('repairTableChecksums', () => {
  it('leaves a valid table as it is', () => {
    const index = read('variables/variables.index');
    expect(repairTableChecksums(index)).toEqual(index);
  });

  it('makes a mutated data block pass its crc32c check', async () => {
    const mutated = read('variables/variables.index');
    mutated[3] = (mutated[3] as number) ^ 0x5a;
    expect(await diagnosticsWith(mutated)).toMatch(/crc32c/);
    expect(await diagnosticsWith(repairTableChecksums(mutated))).not.toMatch(/fails its crc32c check/);
  });
});
