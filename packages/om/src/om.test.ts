import { describe, expect, it } from 'vitest';
import { crc32 } from './crc32.js';
import { HEADER, OM_HEADER_SIZE, PARTITION_ENTRY_SIZE } from './layout.js';
import { omToJson } from './om-to-json.js';
import { readOm } from './read-om.js';
import { sampleModel } from './test-model.js';
import { writeOm } from './write-om.js';

/** Deterministic PRNG (mulberry32) so a failing mutation can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fixChecksum(bytes: Uint8Array): Uint8Array {
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(HEADER.checksum, crc32(bytes.subarray(OM_HEADER_SIZE)), true);
  return bytes;
}

function expectRejectedOrRead(bytes: Uint8Array): 'ok' | 'rejected' {
  const result = readOm(bytes, { fileName: 'm.om' });
  if (result.model) {
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    return 'ok';
  }
  expect(result.diagnostics.length).toBeGreaterThan(0);
  for (const d of result.diagnostics) expect(d.code).toMatch(/^TSGE-E2\d{3}$/);
  return 'rejected';
}

describe('.om round trip', () => {
  it('reads back what it wrote', () => {
    const input = sampleModel();
    const bytes = writeOm(input);
    expect(bytes.length % 64).toBe(0);
    const { model, diagnostics } = readOm(bytes);
    expect(diagnostics).toEqual([]);
    if (!model) throw new Error('no model');
    expect(model.header).toMatchObject({ formatVersion: 1, headerSize: 256, modelName: 'sample', target: 'wasm-simd', partitionCount: 5 });
    expect(model.header.flags).toEqual({ dynamic: false, gears: false });
    expect(model.taskInfo).toEqual(input.taskInfo);
    expect(model.ioInfo).toEqual(input.ioInfo);
    expect([...model.weights]).toEqual([...input.weights]);
    expect(model.kernels.map((k) => [k.name, [...k.bytes]])).toEqual([['gen0', [0, 97, 115, 109, 1, 0, 0, 0]]]);
    expect(model.graph.nodes.map((n) => n.name).sort()).toEqual(['NetOutput', 'add', 'relu', 'w', 'x']);
    expect(model.graph.findNode('relu')?.producer(0)?.node.name).toBe('add');
    expect(model.graph.findNode('w')?.opDesc.attrs.get('_weight_bytes')).toEqual({ kind: 'int', value: 16 });
    // weights partition is 64-byte aligned within the file
    expect((model.weights.byteOffset - bytes.byteOffset) % 64).toBe(0);
    const json = omToJson(model) as { header: { modelName: string }; weights: { bytes: number } };
    expect(json.header.modelName).toBe('sample');
    expect(json.weights.bytes).toBe(64);
  });

  it('names each problem of a broken file', () => {
    const good = writeOm(sampleModel());
    const code = (bytes: Uint8Array): string | undefined => readOm(bytes).diagnostics[0]?.code;
    expect(code(good.subarray(0, 100))).toBe('TSGE-E2003');
    const magic = good.slice();
    magic[0] = 0x58;
    expect(code(magic)).toBe('TSGE-E2001');
    const version = good.slice();
    new DataView(version.buffer).setUint32(HEADER.formatVersion, 2, true);
    expect(code(version)).toBe('TSGE-E2002');
    const flipped = good.slice();
    flipped[flipped.length - 70] ^= 0xff;
    expect(code(flipped)).toBe('TSGE-E2005');
    expect(code(good.subarray(0, good.length - 64))).toBe('TSGE-E2003');
    const overlap = good.slice();
    const view = new DataView(overlap.buffer);
    view.setBigUint64(OM_HEADER_SIZE + PARTITION_ENTRY_SIZE + 8, view.getBigUint64(OM_HEADER_SIZE + 8, true), true);
    expect(readOm(fixChecksum(overlap)).diagnostics[0]?.message).toMatch(/overlap|outside/);
    const count = good.slice();
    new DataView(count.buffer).setUint32(HEADER.partitionCount, 1000, true);
    expect(code(count)).toBe('TSGE-E2004');
  });

  it('survives 1,500 mutations without throwing', () => {
    const good = writeOm(sampleModel());
    const next = random(42);
    const int = (n: number): number => Math.floor(next() * n);
    const outcomes = { ok: 0, rejected: 0 };
    for (let i = 0; i < 1500; i++) {
      let bytes = good.slice();
      const kind = i % 6;
      if (kind === 0) {
        for (let k = 0, n = 1 + int(8); k < n; k++) bytes[int(bytes.length)] = int(256);
      } else if (kind === 1) {
        bytes = bytes.subarray(0, int(bytes.length));
      } else if (kind === 2) {
        // flips in the body with a fixed-up checksum reach the partition decoders
        for (let k = 0, n = 1 + int(4); k < n; k++) bytes[OM_HEADER_SIZE + int(bytes.length - OM_HEADER_SIZE)] ^= 1 << int(8);
        fixChecksum(bytes);
      } else if (kind === 3) {
        const entry = OM_HEADER_SIZE + int(5) * PARTITION_ENTRY_SIZE;
        const field = [0, 4, 8, 16][int(4)] as number;
        const view = new DataView(bytes.buffer);
        if (field >= 8) view.setBigUint64(entry + field, BigInt(int(2 ** 20)) * (next() < 0.1 ? 2n ** 40n : 1n), true);
        else view.setUint32(entry + field, int(2 ** 32), true);
        fixChecksum(bytes);
      } else if (kind === 4) {
        const view = new DataView(bytes.buffer);
        const field = [HEADER.headerSize, HEADER.formatVersion, HEADER.flags, HEADER.partitionCount, HEADER.bodyLength][int(5)] as number;
        view.setUint32(field, int(10) < 5 ? int(8) : int(2 ** 32), true);
        if (next() < 0.5) bytes[HEADER.modelName + int(96)] = int(256);
      } else {
        // mutate a JSON partition at one character, with a valid checksum
        const text = new TextDecoder().decode(bytes);
        const at = text.indexOf(next() < 0.5 ? '"version"' : '"offset"', OM_HEADER_SIZE);
        if (at > 0) bytes[at + 10 + int(4)] = [0x30, 0x39, 0x2d, 0x7d, 0x22][int(5)] as number;
        fixChecksum(bytes);
      }
      outcomes[expectRejectedOrRead(bytes)]++;
    }
    expect(outcomes.rejected).toBeGreaterThan(1000);
  });
});

describe('.om tasks with attributes', () => {
  const withAttrs = (attrs: unknown): ReturnType<typeof sampleModel> => {
    const input = sampleModel();
    for (const plan of input.taskInfo.plans)
      for (const stream of plan.streams)
        for (const task of stream.tasks) if (task.kind === 'kernel') Object.assign(task, { attrs, opset: 14 });
    return input;
  };

  it('reads MODEL_DEF lazily when every kernel task carries its attributes', () => {
    const bytes = writeOm(withAttrs({ alpha: { kind: 'float', value: 0.5 }, axes: { kind: 'ints', value: [1, 2] } }));
    const lazy = readOm(bytes, { lazyGraph: true }).model;
    expect(Object.getOwnPropertyDescriptor(lazy, 'graph')?.get).toBeTypeOf('function');
    expect(lazy?.graph.nodes.map((n) => n.name).sort()).toEqual(['NetOutput', 'add', 'relu', 'w', 'x']);
    // without the option, or with a task that lacks attributes, the graph is decoded at once
    expect(Object.getOwnPropertyDescriptor(readOm(bytes).model, 'graph')?.value).toBeDefined();
    const partial = readOm(writeOm(sampleModel()), { lazyGraph: true }).model;
    expect(Object.getOwnPropertyDescriptor(partial, 'graph')?.value).toBeDefined();
  });

  it('rejects attributes a task cannot carry, naming them', () => {
    for (const attrs of [
      { g: { kind: 'graph', value: 'body' } },
      { f: { kind: 'float', value: 'x' } },
      { i: { kind: 'ints', value: [1.5] } },
      [],
    ]) {
      const { model, diagnostics } = readOm(writeOm(withAttrs(attrs)));
      expect(model).toBeUndefined();
      expect(diagnostics[0]?.code).toBe('TSGE-E2006');
      expect(diagnostics[0]?.message).toMatch(/attrs/);
    }
  });
});
