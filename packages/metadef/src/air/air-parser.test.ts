import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../builder/graph-builder.js';
import { createTensorDesc } from '../types/tensor-desc.js';
import { airParser } from './air-parser.js';
import { serializeAir } from './serialize-air.js';

function model(): Uint8Array {
  const b = new GraphBuilder('g');
  const x = b.input('x', 'float32', ['batch', 4]);
  b.output(b.op('Relu', [x], { name: 'relu', outputDescs: [createTensorDesc('float32', ['batch', 4])] }), 'y');
  return serializeAir(b.build());
}

describe('airParser', () => {
  it('sniffs .air by extension and by content, and not other bytes', () => {
    const bytes = model();
    expect(airParser.sniff(bytes, 'm.AIR')).toBe(0.9);
    expect(airParser.sniff(bytes)).toBeGreaterThan(0);
    expect(airParser.sniff(new Uint8Array([0x08, 0x07, 0x12, 0x00]), 'm.onnx')).toBe(0);
    expect(airParser.sniff(new Uint8Array([0x0a, 0xff]), 'x.bin')).toBe(0);
  });

  it('parses with input shape overrides and reports unknown inputs', async () => {
    const result = await airParser.parse(
      { bytes: model(), path: 'm.air' },
      {
        inputShapes: new Map([
          ['x', [2, 4]],
          ['nope', [1]],
        ]),
      },
    );
    expect(result.graph?.findNode('x')?.opDesc.outputDescs[0]?.shape).toEqual([2, 4]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['TSGE-E7002']);
  });

  it('returns diagnostics, not exceptions, for a broken file', async () => {
    const result = await airParser.parse({ bytes: model().subarray(0, 20), path: 'm.air' });
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics[0]?.location?.file).toBe('m.air');
  });
});
