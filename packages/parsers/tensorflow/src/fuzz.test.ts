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

const i32 = (name: string, dims: readonly number[], values: readonly number[]) =>
  `node { name: "${name}" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { ${dims.map((d) => `dim { size: ${d} }`).join(' ')} } int_val: [${values.join(', ')}] } } } }`;
const ET = 'attr { key: "element_dtype" value { type: DT_FLOAT } }';
/** TensorList scatters, resize, concat and split, and a TensorArray concat's lengths read. */
const LISTS = [
  'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 4 } } } } }',
  i32('es', [1], [4]),
  i32('any', [], [-1]),
  i32('at', [3], [2, 0, 1]),
  i32('n', [], [3]),
  i32('two', [], [2]),
  i32('ones', [3], [1, 1, 1]),
  `node { name: "s1" op: "TensorListScatter" input: ["x", "at", "es"] ${ET} }`,
  `node { name: "s2" op: "TensorListScatterV2" input: ["x", "at", "es", "n"] ${ET} }`,
  `node { name: "s3" op: "TensorListScatterIntoExistingList" input: ["s1", "x", "at"] ${ET} }`,
  `node { name: "r" op: "TensorListResize" input: ["s3", "two"] }`,
  `node { name: "c" op: "TensorListConcatV2" input: ["r", "es", "at"] ${ET} }`,
  `node { name: "sp" op: "TensorListSplit" input: ["x", "any", "ones"] ${ET} }`,
  `node { name: "c1" op: "TensorListConcat" input: ["sp"] ${ET} }`,
  `node { name: "st" op: "TensorListStack" input: ["s2", "es"] ${ET} attr { key: "num_elements" value { i: -1 } } }`,
  'node { name: "ta" op: "TensorArrayV3" input: ["n"] attr { key: "dtype" value { type: DT_FLOAT } } }',
  'node { name: "tw" op: "TensorArrayScatterV3" input: ["ta", "at", "x", "ta:1"] attr { key: "T" value { type: DT_FLOAT } } }',
  'node { name: "tc" op: "TensorArrayConcatV3" input: ["ta", "tw"] attr { key: "dtype" value { type: DT_FLOAT } } }',
  'node { name: "lengths" op: "Identity" input: ["tc:1"] attr { key: "T" value { type: DT_INT64 } } }',
  'node { name: "out" op: "Identity" input: ["c"] attr { key: "T" value { type: DT_FLOAT } } }',
].join('\n');

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

  it('parses 300 mutated text GraphDefs of TensorList scatters, resizes and concats into a graph or diagnostics', async () => {
    const source = new TextEncoder().encode(LISTS);
    const clean = await parseTensorflow({ bytes: source, path: 'lists.pbtxt' });
    expect(clean.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const next = random(99);
    let withDiagnostics = 0;
    for (let i = 0; i < 300; i++) {
      const bytes = mutate(source, next);
      const result = await parseTensorflow({ bytes, path: `fuzz-list-${i}.pbtxt` });
      expect(result.graph !== undefined || result.diagnostics.length > 0).toBe(true);
      if (result.diagnostics.length) withDiagnostics++;
      for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E\d{4}$/);
    }
    expect(withDiagnostics).toBeGreaterThan(30);
  });

  it('rejects deeply nested text without overflowing the stack', async () => {
    const deep = `node { name: "a" op: "Const" attr { key: "value" value { ${'list { '.repeat(5000)}`;
    const result = await parseTensorflow({ bytes: new TextEncoder().encode(deep), path: 'deep.pbtxt' });
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics[0]?.code).toBe('TSGE-E3101');
  });
});
