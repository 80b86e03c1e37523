import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTensorflow, parseTfjs, tensorflowParser, tfjsParser } from './index.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata/models/tensorflow/tf2onnx');
const tfjsData = path.resolve(process.cwd(), '../shared/testdata/models/tfjs');

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
    bytes[at] = kind === 1 ? Math.floor(next() * 256) : kind === 2 ? 0xff : (bytes[at] as number) ^ (1 << Math.floor(next() * 8));
  }
  return bytes;
}

const TEXT = `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 2 } } float_val: [1, 2, 3, 4, 5, 6, 7, 8] } } } }
node { name: "m" op: "MatMul" input: ["x", "w"] attr { key: "T" value { type: DT_FLOAT } } }
node { name: "s" op: "StridedSlice" input: ["m", "b", "e", "st"] attr { key: "shrink_axis_mask" value { i: 1 } } }
node { name: "b" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "e" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
node { name: "st" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
node { name: "y" op: "Softmax" input: "s" }
`;

describe('fuzz: mutated GraphDefs never throw', () => {
  it('parses 300 mutated binary GraphDefs into a graph or diagnostics', async () => {
    const sources = ['ae0.frozen.pb', 'fc-layers.frozen.pb', 'gru.frozen.pb'].map(
      (f) => new Uint8Array(readFileSync(path.join(testdata, f))),
    );
    const next = random(4321);
    let withDiagnostics = 0;
    for (let i = 0; i < 300; i++) {
      const bytes = mutate(sources[i % sources.length] as Uint8Array, next);
      const result = await parseTensorflow({ bytes, path: `fuzz-${i}.pb` });
      expect(result.graph !== undefined || result.diagnostics.length > 0).toBe(true);
      if (result.diagnostics.length) withDiagnostics++;
      for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E\d{4}$/);
      expect(() => tensorflowParser.sniff(bytes, `fuzz-${i}.pb`)).not.toThrow();
    }
    expect(withDiagnostics).toBeGreaterThan(30);
  }, 120_000);

  it('parses 600 mutated text GraphDefs into a graph or diagnostics', async () => {
    const source = new TextEncoder().encode(TEXT);
    const next = random(77);
    let withDiagnostics = 0;
    for (let i = 0; i < 600; i++) {
      const bytes = mutate(source, next);
      const result = await parseTensorflow({ bytes, path: `fuzz-${i}.pbtxt` });
      expect(result.graph !== undefined || result.diagnostics.length > 0).toBe(true);
      if (result.diagnostics.length) withDiagnostics++;
      for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E\d{4}$/);
    }
    expect(withDiagnostics).toBeGreaterThan(100);
  });

  it('parses 300 mutated model.json files and weight shards into a graph or diagnostics', async () => {
    const models = ['dense_model', 'graph_model', 'layers_model'].map((d) => ({
      json: new Uint8Array(readFileSync(path.join(tfjsData, d, 'model.json'))),
      dir: path.join(tfjsData, d),
    }));
    const next = random(2024);
    let withDiagnostics = 0;
    for (let i = 0; i < 300; i++) {
      const m = models[i % models.length] as (typeof models)[number];
      const mutateShards = i % 2 === 0;
      const bytes = mutateShards ? m.json : mutate(m.json, next);
      const readRelative = async (p: string) => {
        const shard = new Uint8Array(readFileSync(path.join(m.dir, path.basename(p))));
        return mutateShards ? mutate(shard, next) : shard;
      };
      const result = await parseTfjs({ bytes, path: 'model.json', readRelative });
      expect(result.graph !== undefined || result.diagnostics.length > 0).toBe(true);
      if (result.diagnostics.length) withDiagnostics++;
      for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E\d{4}$/);
      expect(() => tfjsParser.sniff(bytes, 'model.json')).not.toThrow();
    }
    expect(withDiagnostics).toBeGreaterThan(50);
  });

  it('rejects deeply nested text without overflowing the stack', async () => {
    const deep = `node { name: "a" op: "Const" attr { key: "value" value { ${'list { '.repeat(5000)}`;
    const result = await parseTensorflow({ bytes: new TextEncoder().encode(deep), path: 'deep.pbtxt' });
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics[0]?.code).toBe('TSGE-E3101');
  });
});
