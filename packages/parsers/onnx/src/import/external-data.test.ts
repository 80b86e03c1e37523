import { type Graph, type HostTensor, constValueOf } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { parseOnnx } from '../index.js';
import { DT, encodeModel, node, value } from '../testing/build-model.js';

function modelWithExternal(location: string, offset: number, length?: number): Uint8Array {
  const entries = [
    { key: 'location', value: location },
    { key: 'offset', value: String(offset) },
    ...(length !== undefined ? [{ key: 'length', value: String(length) }] : []),
  ];
  return encodeModel({
    nodes: [node('Add', ['x', 'w'], ['y'])],
    inputs: [value('x', DT.FLOAT, [2])],
    outputs: [value('y', DT.FLOAT, [2])],
    initializers: [{ name: 'w', dims: [2], dataType: DT.FLOAT, dataLocation: 1, externalData: entries }],
  });
}

/** A side-file reader over an in-memory folder that records what was asked. */
function folder(files: Record<string, Uint8Array>): { read: (p: string) => Promise<Uint8Array>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    read: async (p) => {
      asked.push(p);
      const f = files[p];
      if (!f) throw new Error(`no such file ${p}`);
      return f;
    },
  };
}

const weights = new Uint8Array(16);
new Float32Array(weights.buffer).set([0, 7, 8, 0]);

describe('external data', () => {
  it('reads initializers from a side file at offset/length', async () => {
    const dir = folder({ 'weights.bin': weights });
    const result = await parseOnnx({ bytes: modelWithExternal('weights.bin', 4, 8), readRelative: dir.read });
    expect(result.diagnostics).toEqual([]);
    const w = constValueOf((result.graph as Graph).findNode('w')) as HostTensor;
    expect([...(w.data as Float32Array)]).toEqual([7, 8]);
    expect(dir.asked).toEqual(['weights.bin']);
  });

  it('rejects paths that leave the model folder without reading them', async () => {
    for (const location of ['../secret.bin', '/etc/passwd', 'a/../../b', 'C:\\x.bin', '..\\x']) {
      const dir = folder({});
      const result = await parseOnnx({ bytes: modelWithExternal(location, 0), readRelative: dir.read });
      expect(result.graph).toBeUndefined();
      expect(result.diagnostics.map((d) => d.code)).toContain('TSGE-E3004');
      expect(dir.asked).toEqual([]);
    }
  });

  it('reports data beyond the end of the file, missing files and missing readers', async () => {
    const beyond = await parseOnnx({
      bytes: modelWithExternal('weights.bin', 12, 8),
      readRelative: folder({ 'weights.bin': weights }).read,
    });
    expect(beyond.diagnostics[0]?.code).toBe('TSGE-E3003');
    const missing = await parseOnnx({ bytes: modelWithExternal('nope.bin', 0), readRelative: folder({}).read });
    expect(missing.diagnostics[0]?.code).toBe('TSGE-E3001');
    const noReader = await parseOnnx({ bytes: modelWithExternal('weights.bin', 0) });
    expect(noReader.diagnostics[0]?.code).toBe('TSGE-E3001');
  });

  it('reads only the tensor range through readRange when the host offers it', async () => {
    const ranges: [string, number, number][] = [];
    const readRange = async (p: string, offset: number, length: number) => {
      ranges.push([p, offset, length]);
      return weights.slice(offset, offset + length);
    };
    const whole = folder({ 'weights.bin': weights });
    const result = await parseOnnx({ bytes: modelWithExternal('weights.bin', 4, 8), readRelative: whole.read, readRange });
    expect(result.diagnostics).toEqual([]);
    expect([...(constValueOf((result.graph as Graph).findNode('w')) as HostTensor).data]).toEqual([7, 8]);
    expect(ranges).toEqual([['weights.bin', 4, 8]]);
    expect(whole.asked).toEqual([]);
  });
});
