import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TsgeError } from '@tsge/metadef';
import { parseTflite, tfliteIo, tfliteParser } from './index.js';

const coral = path.resolve(process.cwd(), '../shared/testdata/models/tflite/coral');

/** A small deterministic PRNG so failures reproduce. */
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

/** Truncations, random bytes, 0xff runs (huge lengths and offsets) and bit flips; the header is kept sometimes. */
function mutate(source: Uint8Array, next: () => number): Uint8Array {
  const kind = Math.floor(next() * 4);
  if (kind === 0) return source.subarray(0, Math.floor(next() * source.length));
  const bytes = source.slice();
  const edits = 1 + Math.floor(next() * 8);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * bytes.length);
    bytes[at] = kind === 1 ? Math.floor(next() * 256) : kind === 2 ? 0xff : (bytes[at] as number) ^ (1 << Math.floor(next() * 8));
  }
  return bytes;
}

describe('fuzz: mutated TFLite models never throw', () => {
  // the small models whole, and the start of a large one (its tables sit at the end, so keep it whole too)
  const sources = [
    'split_concat.tflite',
    'keras_lstm_mnist_ptq.tflite',
    'invalid_model_invoking_error.tflite',
    'mobilenet_v1_0.25_128_quant.tflite',
  ].map((f) => new Uint8Array(readFileSync(path.join(coral, f))));

  it('parses 400 mutated models into a graph or coded diagnostics', async () => {
    const next = random(2024);
    let withDiagnostics = 0;
    for (let i = 0; i < 400; i++) {
      const bytes = mutate(sources[i % sources.length] as Uint8Array, next);
      const result = await parseTflite({ bytes, path: `fuzz-${i}.tflite` });
      expect(result.graph !== undefined || result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
      if (result.diagnostics.length) withDiagnostics++;
      for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E\d{4}$/);
      expect(() => tfliteParser.sniff(bytes)).not.toThrow();
      try {
        tfliteIo(bytes);
      } catch (error) {
        expect(TsgeError.isInstance(error), String(error)).toBe(true);
      }
    }
    expect(withDiagnostics).toBeGreaterThan(50);
  });
});
