import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeValueProto, onnxParser, parseOnnx } from './index.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata');

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

function mutate(source: Uint8Array, next: () => number): Uint8Array {
  const kind = Math.floor(next() * 4);
  if (kind === 0) return source.subarray(0, Math.floor(next() * source.length));
  const bytes = source.slice();
  const edits = 1 + Math.floor(next() * 8);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * bytes.length);
    bytes[at] = kind === 1 ? Math.floor(next() * 256) : kind === 2 ? 0xff : bytes[at] ^ (1 << Math.floor(next() * 8));
  }
  return bytes;
}

describe('fuzz: mutated models never throw', () => {
  const sources = [
    'onnx-backend/node/test_if/model.onnx',
    'onnx-backend/node/test_loop11/model.onnx',
    'onnx-backend/node/test_conv_with_strides_padding/model.onnx',
    'onnx-backend/node/test_affine_grid_2d_expanded/model.onnx',
    'onnx-backend/pytorch-converted/test_AvgPool1d/model.onnx',
    'onnx-backend/node/test_sequence_map_add_2_sequences/model.onnx',
  ].map((p) => new Uint8Array(readFileSync(path.join(testdata, p))));

  it('parses 600 mutated models into a graph or diagnostics', async () => {
    const next = random(1234);
    let withDiagnostics = 0;
    for (let i = 0; i < 600; i++) {
      const bytes = mutate(sources[i % sources.length] as Uint8Array, next);
      const result = await parseOnnx({ bytes, path: `fuzz-${i}.onnx` });
      expect(result.graph !== undefined || result.diagnostics.length > 0).toBe(true);
      if (result.diagnostics.length) withDiagnostics++;
      for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E\d{4}$/);
      expect(() => onnxParser.sniff(bytes)).not.toThrow();
    }
    expect(withDiagnostics).toBeGreaterThan(50);
  });

  it('decodes 300 mutated value files or throws TsgeError only', () => {
    const next = random(99);
    const source = new Uint8Array(readFileSync(path.join(testdata, 'onnx-backend/node/test_if/test_data_set_0/output_0.pb')));
    for (let i = 0; i < 300; i++) {
      const bytes = mutate(source, next);
      try {
        decodeValueProto(bytes);
      } catch (error) {
        expect((error as { code?: string }).code).toMatch(/^TSGE-E\d{4}$/);
      }
    }
  });
});
