import type { Diagnostic } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import schema from '../generated/caffe-schema.js';
import { parseTextFormat } from './parse-text.js';

const NET = schema.lookupType('caffe.NetParameter');
const parse = (text: string, diagnostics: Diagnostic[] = []) => parseTextFormat(text, NET, diagnostics);

describe('protobuf text format', () => {
  it('reads nested messages, repeated fields, enums and every value spelling', () => {
    const net = parse(`
      name: 'a' "b"  # adjacent strings concatenate
      input: "data" input_dim: 1 input_dim: 0x3 input_dim: 010 input_dim: 224
      layer < name: "p" type: "Pooling" pooling_param { pool: AVE kernel_size: [2, 3] stride: 2 global_pooling: true } >
      layer { name: "r"; type: "ReLU", relu_param: { negative_slope: -1.5e-1f } }
      layer { name: "x" type: "Power" power_param { power: inf scale: -inf } }
    `);
    expect(net.name).toBe('ab');
    expect(net.input_dim).toEqual([1, 3, 8, 224]);
    const layers = net.layer as Record<string, Record<string, unknown> & { negative_slope?: number }>[];
    expect(layers.map((l) => l.name)).toEqual(['p', 'r', 'x']);
    expect(layers[0]?.pooling_param).toEqual({ pool: 1, kernel_size: [2, 3], stride: [2], global_pooling: true });
    expect(layers[1]?.relu_param?.negative_slope).toBeCloseTo(-0.15);
    expect(layers[2]?.power_param).toEqual({ power: Number.POSITIVE_INFINITY, scale: Number.NEGATIVE_INFINITY });
  });

  it('unescapes strings (octal, hex, unicode, UTF-8 bytes)', () => {
    const net = parse(String.raw`name: "a\n\t\"\101\x42\u00e9\303\251"`);
    expect(net.name).toBe('a\n\t"ABéé');
  });

  it('skips unknown fields with one warning per field', () => {
    const diagnostics: Diagnostic[] = [];
    const net = parse('name: "n" fancy { a: 1 b { c: [1, 2] } } fancy { } layer { name: "l" weird: ENUM }', diagnostics);
    expect(net.name).toBe('n');
    expect(diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['TSGE-E3210', 'warning'],
      ['TSGE-E3210', 'warning'],
    ]);
  });

  it.each([
    ['name "x"', /line 1, column 6: expected ":"/],
    ['layer { name: "x"', /unexpected end of file/],
    ['name: "x', /unterminated string/],
    ['layer { pooling_param { pool: MEDIAN } }', /MEDIAN is not a value of enum PoolMethod/],
    ['input_dim: 1.5', /expected an integer/],
    ['layer { convolution_param { num_output: -3 } }', /out of range for uint32/],
    ['force_backward: maybe', /expected true or false/],
    ['name: 3', /expected a quoted string/],
    ['\n\n  layer { } }', /line 3, column 13: expected a field name/],
    ['layer: 5', /field layer is a message/],
    ['name: [ "a" ]', /not repeated/],
    ['[ext]: 1', /extensions/],
    ['name: "x" @', /unexpected character/],
  ])('rejects %j with TSGE-E3201', (text, message) => {
    expect(() => parse(text)).toThrowError(message);
    try {
      parse(text);
    } catch (error) {
      expect((error as { code: string }).code).toBe('TSGE-E3201');
    }
  });

  it('bounds nesting depth', () => {
    const deep = `${'x { '.repeat(200)}${'} '.repeat(200)}`;
    expect(() => parse(deep)).toThrowError(/nest deeper/);
  });
});
