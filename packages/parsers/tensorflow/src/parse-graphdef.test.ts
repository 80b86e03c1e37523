import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tf } from './internal/proto.js';
import { parseTensorflow, sniffGraphDef, tensorflowParser } from './index.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata/models/tensorflow/tf2onnx');
const encoder = new TextEncoder();

const TEXT = `# a text GraphDef with the forms the text format allows
node {
  name: "x"
  op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } }
}
node {
  name: "w"; op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr {
    key: "value"
    value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 2 } } float_val: [1.5, -2, 3e-1, 4, 5, 6] } }
  }
}
node {
  name: "b"
  op: 'Const'
  attr: { key: "dtype" value: { type: DT_FLOAT } }
  attr: < key: "value" value: < tensor: < dtype: DT_FLOAT tensor_shape < dim < size: 2 > > tensor_content: "\\000\\000\\200?\\000\\000\\000@" > > >
}
node { name: "mm" op: "MatMul" input: "x" input: "w" attr { key: "transpose_a" value { b: false } } attr { key: "T" value { type: DT_FLOAT } } }
node { name: "add" op: "BiasAdd" input: ["mm", "b"] attr { key: "data_format" value { s: "NHWC" } } }
node { name: "out" op: "Relu" input: "add" input: "^mm" }
versions { producer: 27 bad_consumers: [1, 2] }
library { gradient { function_name: "f" gradient_func: "g" } }
`;

describe('GraphDef reading', () => {
  it('reads protobuf text: lists, <> blocks, escapes, comments, control inputs, skipped fields', async () => {
    const { graph, diagnostics } = await parseTensorflow({ bytes: encoder.encode(TEXT), path: 'model.pbtxt' });
    expect(diagnostics).toEqual([]);
    const g = graph as NonNullable<typeof graph>;
    expect(g.inputNodes().map((n) => n.opDesc.outputNames[0])).toEqual(['x']);
    expect(g.inputNodes()[0]?.opDesc.outputDescs[0]?.shape).toEqual([-1, 3]);
    const out = g.outputNode();
    expect(out?.opDesc.inputNames).toEqual(['out']);
    const w = g.findNode('w')?.opDesc.attrs.get('value');
    expect(w?.kind === 'tensor' && [...(w.value.data as Float32Array)]).toEqual([1.5, -2, Math.fround(0.3), 4, 5, 6]);
    const b = g.findNode('b')?.opDesc.attrs.get('value');
    expect(b?.kind === 'tensor' && [...(b.value.data as Float32Array)]).toEqual([1, 2]);
    expect(g.findNode('out')?.type).toBe('Relu');
    expect(g.findNode('mm')?.type).toBe('MatMul');
  });

  it('reads the same graph from binary and text identically', async () => {
    const bytes = readFileSync(path.join(testdata, 'fc-layers.frozen.pb'));
    const fromBinary = await parseTensorflow({ bytes, path: 'fc.pb' });
    const object = tf.GraphDef.toObject(tf.GraphDef.decode(bytes), { enums: String, longs: String });
    // back to text through a minimal writer: the fields this graph uses
    const q = (s: Uint8Array | string) =>
      `"${[...(typeof s === 'string' ? encoder.encode(s) : s)].map((c) => `\\${c.toString(8).padStart(3, '0')}`).join('')}"`;
    const value = (v: Record<string, unknown>): string =>
      Object.entries(v)
        .map(([k, x]) => {
          const key = k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
          if (Array.isArray(x))
            return x
              .map((item) =>
                item instanceof Uint8Array
                  ? `${key}: ${q(item)}`
                  : typeof item === 'object'
                    ? `${key} { ${value(item)} }`
                    : `${key}: ${typeof item === 'string' ? q(item) : item}`,
              )
              .join(' ');
          if (x instanceof Uint8Array) return `${key}: ${q(x)}`;
          if (typeof x === 'object' && x !== null) return `${key} { ${value(x as Record<string, unknown>)} }`;
          return `${key}: ${typeof x === 'string' && !/^DT_/.test(x) && !/^-?\d+$/.test(x) ? q(x) : x}`;
        })
        .join(' ');
    const text = (object.node as Record<string, unknown>[])
      .map((n) => {
        const { attr, ...rest } = n as { attr?: Record<string, Record<string, unknown>> };
        const attrs = Object.entries(attr ?? {})
          .map(([k, v]) => `attr { key: ${q(k)} value { ${value(v)} } }`)
          .join(' ');
        return `node { ${value(rest)} ${attrs} }`;
      })
      .join('\n');
    const fromText = await parseTensorflow({ bytes: encoder.encode(text), path: 'fc.pbtxt' });
    expect(fromText.diagnostics).toEqual([]);
    const describe = (g: typeof fromBinary.graph) =>
      g?.nodes.map((n) => `${n.name}:${n.type}:${n.inData.map((a) => a.peer?.node.name).join(',')}`).sort();
    expect(describe(fromText.graph)).toEqual(describe(fromBinary.graph));
  });

  it('lists every unsupported op type once, with its count and first node', async () => {
    const text = `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "a" op: "FancyOp" input: "x" }
node { name: "b" op: "FancyOp" input: "a" }
node { name: "c" op: "OtherOp" input: "b" }
node { name: "d" op: "Relu" input: "c" }`;
    const { graph, diagnostics } = await parseTensorflow({ bytes: encoder.encode(text), path: 'm.pbtxt' });
    expect(graph).toBeUndefined();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.code).toBe('TSGE-E3102');
    expect(diagnostics[0]?.message).toContain('FancyOp ×2 (first: a)');
    expect(diagnostics[0]?.message).toContain('OtherOp ×1 (first: c)');
  });

  it('applies --input_shape and --out_nodes, and names what it cannot find', async () => {
    const bytes = readFileSync(path.join(testdata, 'ae0.frozen.pb'));
    const ok = await parseTensorflow({ bytes }, { inputShapes: new Map([['X', [2, 784]]]), outputNodes: ['decode/dense/Sigmoid:0'] });
    const names = ok.graph?.outputNode()?.opDesc.inputNames;
    const all = ok.diagnostics.map((d) => d.message);
    expect(all).toEqual([]);
    expect(names).toEqual(['decode/dense/Sigmoid:0']);
    expect(ok.graph?.inputNodes()[0]?.opDesc.outputDescs[0]?.shape).toEqual([2, 784]);
    const bad = await parseTensorflow({ bytes }, { inputShapes: new Map([['Y', [1]]]), outputNodes: ['nope'] });
    expect(bad.graph).toBeUndefined();
    expect(bad.diagnostics.map((d) => d.code).sort()).toEqual(['TSGE-E3114']);
    const badInput = await parseTensorflow({ bytes }, { inputShapes: new Map([['Y', [1]]]) });
    expect(badInput.diagnostics.map((d) => d.code)).toEqual(['TSGE-E3113']);
  });

  it('reports a missing producer and a cycle', async () => {
    const missing = await parseTensorflow({ bytes: encoder.encode('node { name: "r" op: "Relu" input: "ghost" }') });
    expect(missing.diagnostics.map((d) => d.code)).toEqual(['TSGE-E3104']);
    const cycle = await parseTensorflow({
      bytes: encoder.encode(
        'node { name: "a" op: "Relu" input: "b" } node { name: "b" op: "Relu" input: "a" } node { name: "o" op: "Relu" input: "a" }',
      ),
    });
    expect(cycle.diagnostics.map((d) => d.code)).toContain('TSGE-E3107');
  });

  it('sniffs binary and text GraphDefs and nothing else', () => {
    expect(sniffGraphDef(readFileSync(path.join(testdata, 'ae0.frozen.pb')), 'ae0.frozen.pb')).toBeGreaterThan(0.5);
    expect(sniffGraphDef(encoder.encode(TEXT))).toBeGreaterThan(0.5);
    expect(sniffGraphDef(encoder.encode('{"format": "graph-model"}'))).toBe(0);
    expect(sniffGraphDef(Uint8Array.of(8, 7, 18, 3))).toBe(0);
    expect(tensorflowParser.framework).toBe(3);
  });
});
