// Mutated prototxts and caffemodels: the parser returns a graph or coded diagnostics, never throws
// or hangs. Entry points for a fuzz campaign: parseCaffe (prototxt bytes, with and without
// `extra.weights`), caffeParser.sniff, initializeCaffemodel.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { caffeParser, parseCaffe } from './index.js';

const caffeDir = path.resolve(process.cwd(), '../shared/testdata/models/caffe');

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

const TEXT_PIECES = [
  '{',
  '}',
  ':',
  '"',
  '-1',
  '0',
  '999999999999',
  'layer',
  'bottom: "x"',
  'top: "data"',
  'type: "Eltwise"',
  '[',
  ']',
  '#',
  '\\',
  'inf',
  'num_output: 0',
  'kernel_size: 100',
];

function mutateText(source: Uint8Array, next: () => number): Uint8Array {
  const text = new TextDecoder().decode(source);
  const kind = Math.floor(next() * 3);
  if (kind === 0) return source.subarray(0, Math.floor(next() * source.length));
  let out = text;
  const edits = 1 + Math.floor(next() * 6);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * out.length);
    const piece = TEXT_PIECES[Math.floor(next() * TEXT_PIECES.length)] as string;
    out = kind === 1 ? out.slice(0, at) + piece + out.slice(at) : out.slice(0, at) + out.slice(at + 1 + Math.floor(next() * 20));
  }
  return new TextEncoder().encode(out);
}

function mutateBytes(source: Uint8Array, next: () => number): Uint8Array {
  if (next() < 0.3) return source.subarray(0, Math.floor(next() * source.length));
  const bytes = source.slice();
  for (let i = 0; i < 1 + Math.floor(next() * 8); i++) {
    const at = Math.floor(next() * Math.min(bytes.length, 4096));
    bytes[at] = Math.floor(next() * 256);
  }
  return bytes;
}

const expectCoded = (result: { graph: unknown; diagnostics: readonly { code: string }[] }) => {
  expect(result.graph !== undefined || result.diagnostics.length > 0).toBe(true);
  for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E\d{4}$/);
};

describe('fuzz: mutated Caffe files never throw', () => {
  const prototxts = ['lenet/lenet.prototxt', 'bvlc/bvlc_googlenet.deploy.prototxt', 'bvlc/cifar10_quick.prototxt'].map(
    (p) => new Uint8Array(readFileSync(path.join(caffeDir, p))),
  );
  const caffemodel = new Uint8Array(readFileSync(path.join(caffeDir, 'lenet/lenet_iter_10000.caffemodel')));
  const lenet = prototxts[0] as Uint8Array;

  it('parses 300 mutated prototxts into a graph or diagnostics', async () => {
    const next = random(17);
    let failed = 0;
    for (let i = 0; i < 300; i++) {
      const bytes = mutateText(prototxts[i % prototxts.length] as Uint8Array, next);
      const result = await parseCaffe({ bytes, path: `fuzz-${i}.prototxt` }, { extra: { initializeWeights: true } });
      expectCoded(result);
      if (!result.graph) failed++;
      expect(() => caffeParser.sniff(bytes)).not.toThrow();
    }
    expect(failed).toBeGreaterThan(50);
  }, 120_000);

  it('parses lenet with 150 mutated caffemodels, and mutated caffemodels as the model', async () => {
    const next = random(5);
    for (let i = 0; i < 150; i++) {
      const weights = mutateBytes(caffemodel, next);
      expectCoded(await parseCaffe({ bytes: lenet }, { extra: { weights } }));
      expectCoded(await parseCaffe({ bytes: weights }, { inputShapes: new Map([['data', [1, 1, 28, 28]]]) }));
    }
  }, 120_000);
});
