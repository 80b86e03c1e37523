import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ATTR_VALUE, type Graph, type ParseInput } from '@tsge/metadef';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { tensorflowParser } from '../parser.js';

const SAVED_MODELS = path.resolve(process.cwd(), '../shared/testdata/models/tensorflow/saved_model');

/** A SavedModel directory as the front door hands it to the parser. */
function savedModelInput(name: string): ParseInput {
  const dir = path.join(SAVED_MODELS, name);
  const readRelative = async (p: string) => new Uint8Array(readFileSync(path.join(dir, p)));
  return {
    bytes: new Uint8Array(readFileSync(path.join(dir, 'saved_model.pb'))),
    path: path.join(dir, 'saved_model.pb'),
    readRelative,
    readRange: async (p, offset, length) => (await readRelative(p)).slice(offset, offset + length),
  };
}

async function parse(name: string, extra?: Record<string, unknown>): Promise<Graph> {
  const result = await tensorflowParser.parse(savedModelInput(name), extra ? { extra } : {});
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.graph as Graph;
}

describe('SavedModel parsing', () => {
  it('sniffs saved_model.pb as TensorFlow, by name and by bytes', () => {
    const input = savedModelInput('times_three_float');
    expect(tensorflowParser.sniff(input.bytes, input.path)).toBeGreaterThan(0.9);
    expect(tensorflowParser.sniff(input.bytes, 'model.bin')).toBeGreaterThan(0);
  });

  it('names inputs and outputs by the signature keys', async () => {
    const graph = await parse('model_multi_output');
    expect(graph.inputNodes().map((n) => n.opDesc.outputNames[0])).toEqual(['x', 'y']);
    expect(graph.outputNode()?.opDesc.inputNames).toEqual(['output_0', 'output_1']);
  });

  it('chooses a signature by name', async () => {
    const graph = await parse('module_with_multiple_signatures', { signature: 'timestwo' });
    expect(graph.name).toBe('timestwo');
    expect(graph.inputNodes().map((n) => n.opDesc.outputNames[0])).toEqual(['x']);
    // the variable became a constant read from the checkpoint
    expect(graph.nodes.some((n) => n.type === 'Const' || n.type === 'Constant')).toBe(true);
  });

  it('reports a missing signature with the ones it has', async () => {
    const result = await tensorflowParser.parse(savedModelInput('module_with_multiple_signatures'), { extra: { signature: 'nope' } });
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics[0]?.code).toBe('TSGE-E3109');
    expect(result.diagnostics[0]?.message).toContain('timestwo');
    expect(result.diagnostics[0]?.message).toContain('serving_default');
  });

  it('reports a SavedModel given as bytes alone, without its variables', async () => {
    const { bytes, path: p } = savedModelInput('times_three_float');
    const result = await tensorflowParser.parse({ bytes, ...(p ? { path: p } : {}) });
    expect(result.diagnostics[0]?.code).toBe('TSGE-E3110');
  });

  it('reads saved_model.pbtxt (protobuf text) as it reads saved_model.pb', async () => {
    const binary = savedModelInput('module_with_multiple_signatures');
    const text = new TextEncoder().encode(toText(binary.bytes, 'tensorflow.SavedModel'));
    const textPath = (binary.path as string).replace(/\.pb$/, '.pbtxt');
    expect(tensorflowParser.sniff(text, textPath)).toBeGreaterThan(0.9);
    expect(tensorflowParser.sniff(text, 'model.txt')).toBeGreaterThan(0.5);
    const fromText = await tensorflowParser.parse({ ...binary, bytes: text, path: textPath }, { extra: { signature: 'timestwo' } });
    expect(fromText.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const expected = await parse('module_with_multiple_signatures', { signature: 'timestwo' });
    const summary = (g: Graph) =>
      g.nodes.map((n) => {
        const value = n.opDesc.attrs.get(ATTR_VALUE);
        return [n.name, n.type, value?.kind === 'tensor' ? Array.from(value.value.data as ArrayLike<number>) : undefined];
      });
    expect(summary(fromText.graph as Graph)).toEqual(summary(expected));
  });
});

const root = new protobuf.Root().loadSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../proto/tensorflow.proto'), {
  keepCase: true,
});

/** Protobuf text of binary `bytes` (TensorFlow's text format: maps as key/value entries, bytes octal-escaped). */
function toText(bytes: Uint8Array, typeName: string): string {
  const type = root.lookupType(typeName);
  const object = type.toObject(type.decode(bytes), { enums: String, longs: String, bytes: Array }) as Record<string, unknown>;
  const quote = (b: Uint8Array | number[]) => {
    let out = '"';
    for (const c of b) out += c >= 32 && c < 127 && c !== 34 && c !== 92 ? String.fromCharCode(c) : `\\${c.toString(8).padStart(3, '0')}`;
    return `${out}"`;
  };
  const scalar = (field: protobuf.Field, v: unknown): string => {
    if (field.type === 'bytes') return quote(v as number[]);
    if (field.type === 'string') return quote(new TextEncoder().encode(v as string));
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
    return String(v);
  };
  const message = (t: protobuf.Type, o: Record<string, unknown>): string => {
    const parts: string[] = [];
    for (const field of t.fieldsArray) {
      const v = o[field.name];
      if (v === undefined || v === null) continue;
      const one = (item: unknown) =>
        field.resolvedType instanceof protobuf.Type
          ? `${field.name} { ${message(field.resolvedType, item as Record<string, unknown>)} }`
          : `${field.name}: ${scalar(field, item)}`;
      if (field instanceof protobuf.MapField) {
        for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
          const key = field.keyType === 'string' ? quote(new TextEncoder().encode(k)) : k;
          const value =
            field.resolvedType instanceof protobuf.Type
              ? `value { ${message(field.resolvedType, item as Record<string, unknown>)} }`
              : `value: ${scalar(field, item)}`;
          parts.push(`${field.name} { key: ${key} ${value} }`);
        }
      } else if (field.repeated) for (const item of v as unknown[]) parts.push(one(item));
      else parts.push(one(v));
    }
    return parts.join('\n');
  };
  return `${message(type, object)}\n`;
}
