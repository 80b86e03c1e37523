import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Graph, ParseInput } from '@tsge/metadef';
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
});
