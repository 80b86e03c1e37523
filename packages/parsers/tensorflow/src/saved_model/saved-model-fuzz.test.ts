// Mutated SavedModels (saved_model.pb, variables.index, the data shard) parse into a graph or
// coded diagnostics: never an uncaught error, never a read outside the files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ParseInput } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { tensorflowParser } from '../parser.js';

const dir = path.resolve(process.cwd(), '../shared/testdata/models/tensorflow/saved_model/int64_multiply');
const FILES = ['saved_model.pb', 'variables/variables.index', 'variables/variables.data-00000-of-00001'];

function mutate(bytes: Uint8Array, random: () => number): Uint8Array {
  const out = bytes.slice(0, random() < 0.2 ? Math.floor(random() * bytes.length) : bytes.length);
  for (let k = 1 + Math.floor(random() * 4); k > 0 && out.length; k--) out[Math.floor(random() * out.length)] = Math.floor(random() * 256);
  return out;
}

describe('SavedModel reader under mutation', () => {
  it('answers 300 mutated SavedModels with a graph or coded diagnostics', async () => {
    const original = new Map<string, Uint8Array>(FILES.map((f) => [f, new Uint8Array(readFileSync(path.join(dir, f)))]));
    let seed = 99;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 300; trial++) {
      const target = FILES[trial % FILES.length] as string;
      const files = new Map(original);
      files.set(target, mutate(original.get(target) as Uint8Array, random));
      const read = async (p: string) => {
        const f = files.get(p);
        if (!f) throw new Error(`no file ${p}`);
        return f;
      };
      const input: ParseInput = {
        bytes: files.get('saved_model.pb') as Uint8Array,
        path: path.join(dir, 'saved_model.pb'),
        readRelative: read,
        readRange: async (p, offset, length) => {
          const f = await read(p);
          if (offset + length > f.length) throw new Error(`range past the end of ${p}`);
          return f.slice(offset, offset + length);
        },
      };
      const result = await tensorflowParser.parse(input, {});
      if (!result.graph) {
        expect(result.diagnostics.length).toBeGreaterThan(0);
        for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E3\d{3}$/);
      }
    }
  }, 60_000);
});
