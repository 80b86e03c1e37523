// Defects `pnpm fuzz` found in the GraphDef reader (issue 11): an output count from the file
// (Split's num_split) made an anchor per output before anything checked it (a hang), and protobuf
// text field names and map keys indexed plain objects (`constructor`, `__proto__`).
import { describe, expect, it } from 'vitest';
import { parseTensorflow } from './index.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const placeholder = `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 4 } } } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "y" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
`;

describe('GraphDef reader robustness', () => {
  it('refuses a Split with num_split 2^31 at once, naming the node', async () => {
    const graph = `${placeholder}node { name: "parts" op: "Split" input: ["axis", "x"] attr { key: "num_split" value { i: 2147483648 } } attr { key: "T" value { type: DT_FLOAT } } }\n`;
    const started = performance.now();
    const result = await parseTensorflow({ bytes: text(graph), path: 'split.pbtxt' });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics[0]?.code).toBe('TSGE-E3103');
    expect(result.diagnostics[0]?.message).toMatch(/parts.*2147483648 outputs; at most 16384/);
  });

  it('still converts a Split into its parts', async () => {
    const graph = `${placeholder}node { name: "parts" op: "Split" input: ["axis", "x"] attr { key: "num_split" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }\n`;
    const result = await parseTensorflow({ bytes: text(graph), path: 'split.pbtxt' });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.graph?.nodes.some((n) => n.type === 'Split')).toBe(true);
  });

  for (const name of ['constructor', 'toString', '__proto__']) {
    it(`a text field named ${name} is skipped as unknown, not read as Object's member`, async () => {
      const result = await parseTensorflow({ bytes: text(`${placeholder}${name} { x: 1 }\n`), path: 'x.pbtxt' });
      for (const d of result.diagnostics) expect(d.message).not.toMatch(/TypeError|is not a function|Cannot read/);
      expect(result.graph?.nodes.some((n) => n.name === 'x')).toBe(true);
    });
  }

  it('an attr map key __proto__ is an own key: the node keeps its real attributes', async () => {
    const graph = placeholder.replace('attr { key: "dtype"', 'attr { key: "__proto__" value { type: DT_INT32 } } attr { key: "dtype"');
    const result = await parseTensorflow({ bytes: text(graph), path: 'x.pbtxt' });
    for (const d of result.diagnostics) expect(d.message).not.toMatch(/TypeError|is not a function|Cannot read/);
    const x = result.graph?.nodes.find((n) => n.name === 'x');
    expect(x?.opDesc.outputDescs[0]?.dtype).toBe('float32');
  });
});
