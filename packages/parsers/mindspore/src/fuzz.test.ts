// Mutated MindIR and .air files: a graph or coded diagnostics, never a throw or a hang. Entry points
// for a fuzz campaign: mindsporeParser.parse (bytes with a .mindir or .air path), parseMindir,
// parseMindsporeAir, mindsporeParser.sniff.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mindsporeParser } from './index.js';

const dir = path.resolve(process.cwd(), '../shared/testdata/models/mindspore');

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(source: Uint8Array, next: () => number): Uint8Array {
  const kind = Math.floor(next() * 4);
  if (kind === 0) return source.subarray(0, Math.floor(next() * source.length));
  const bytes = source.slice();
  for (let i = 0; i < 1 + Math.floor(next() * 8); i++) {
    const at = Math.floor(next() * bytes.length);
    bytes[at] = kind === 1 ? Math.floor(next() * 256) : kind === 2 ? 0xff : (bytes[at] as number) ^ (1 << Math.floor(next() * 8));
  }
  return bytes;
}

describe('fuzz: mutated MindSpore files never throw', () => {
  const sources = ['relu.mindir', 'add_no_encrpty.mindir', 'ori_net.mindir', 'old_version_mindir_2.mindir'].map(
    (f) => new Uint8Array(readFileSync(path.join(dir, f))),
  );

  it('parses 400 mutated MindIR files (and the same bytes as .air) into a graph or diagnostics', async () => {
    const next = random(42);
    let failed = 0;
    for (let i = 0; i < 400; i++) {
      const bytes = mutate(sources[i % sources.length] as Uint8Array, next);
      for (const suffix of ['mindir', 'air']) {
        const result = await mindsporeParser.parse({ bytes, path: `fuzz-${i}.${suffix}` });
        expect(result.graph !== undefined || result.diagnostics.length > 0).toBe(true);
        for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E\d{4}$/);
        if (!result.graph) failed++;
      }
      expect(() => mindsporeParser.sniff(bytes)).not.toThrow();
    }
    expect(failed).toBeGreaterThan(100);
  }, 120_000);
});
