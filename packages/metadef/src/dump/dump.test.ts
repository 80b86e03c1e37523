import { describe, expect, it } from 'vitest';
import { controlFlowGraph, everyDtypeGraph } from '../air/air-fixtures.test-util.js';
import { GraphBuilder } from '../builder/graph-builder.js';
import { attr } from '../types/attr.js';
import { createTensor } from '../types/tensor.js';
import { createTensorDesc } from '../types/tensor-desc.js';
import { describeGraph, graphsStructurallyEqual } from './describe-graph.js';
import { graphToDot } from './graph-to-dot.js';
import { graphToJson } from './graph-to-json.js';

type Obj = { [key: string]: unknown };

describe('graphToJson', () => {
  it('dumps a versioned tree with subgraphs and survives JSON.stringify', () => {
    const g = controlFlowGraph();
    const dump = graphToJson(g);
    expect(dump.format).toBe('tsge-graph');
    expect(dump.version).toBe(1);
    const text = JSON.stringify(dump);
    const back = JSON.parse(text) as { graph: { nodes: Obj[]; inputs: string[]; outputs: string[] }; subgraphs: Obj[] };
    expect(back.graph.inputs).toEqual(['x', 'flag']);
    expect(back.graph.outputs).toEqual(['if:0']);
    expect(back.subgraphs.map((s) => [s.name, s.parentGraph, s.parentNode])).toEqual([
      ['then_branch', 'main', 'if'],
      ['outer_body', 'then_branch', 'then_loop'],
      ['inner_body', 'outer_body', 'outer_body_inner_loop'],
      ['else_branch', 'main', 'if'],
    ]);
    const ifNode = back.graph.nodes.find((n) => n.name === 'if') as Obj;
    expect(ifNode.controlInputs).toEqual(['barrier']);
    expect(ifNode.subgraphs).toEqual(['then_branch', 'else_branch']);
    const fused = back.graph.nodes.find((n) => n.name === 'fused') as Obj;
    expect(fused.inputs).toEqual(['relu:0', null, 'x:0']);
    expect(fused.outputDescs).toEqual([
      { dtype: 'float32', shape: ['batch', 1, 1, 4], format: 'NCHW4c', originShape: ['batch', 4], originFormat: 'ND' },
    ]);
  });

  it('summarizes tensors with dtype, dims and the first values', () => {
    const b = new GraphBuilder('g');
    b.output(
      b.constant(
        'big',
        createTensor(
          'float32',
          [4, 5],
          Float32Array.from({ length: 20 }, (_, i) => i / 2),
        ),
      ),
    );
    b.output(b.constant('half', createTensor('float16', [2], new Uint16Array([0x3c00, 0x7e00]))));
    b.output(b.constant('wide', createTensor('int64', [2], new BigInt64Array([2n ** 60n, -3n]))));
    const nodes = graphToJson(b.build(), { maxTensorValues: 3 }).graph.nodes as readonly Obj[];
    const value = (name: string) => ((nodes.find((n) => n.name === name)?.attrs ?? {}) as { value: Obj }).value.value;
    expect(value('big')).toEqual({ dtype: 'float32', dims: [4, 5], count: 20, values: [0, 0.5, 1], truncated: true });
    expect(value('half')).toEqual({ dtype: 'float16', dims: [2], count: 2, values: [1, 'NaN'] });
    expect(value('wide')).toEqual({ dtype: 'int64', dims: [2], count: 2, values: ['1152921504606846976', -3] });
  });

  it('dumps every dtype and attribute kind as plain JSON', () => {
    expect(() => JSON.stringify(graphToJson(everyDtypeGraph()))).not.toThrow();
    const relu = (graphToJson(controlFlowGraph()).graph.nodes as readonly Obj[]).find((n) => n.name === 'relu') as Obj;
    const attrs = relu.attrs as Obj;
    expect(attrs.a_bytes).toEqual({ kind: 'bytes', value: { length: 3, hex: '00ff07' } });
    expect(attrs.a_dtype).toEqual({ kind: 'dtype', value: 'bfloat16' });
    expect(attrs.a_named).toEqual({ kind: 'named_attrs', value: { name: 'fn', attrs: { k: { kind: 'ints', value: [1, 2] } } } });
    expect(JSON.parse(JSON.stringify(attrs.a_floats))).toEqual({ kind: 'floats', value: [1.5, 0, Math.fround(3.3)] });
  });
});

describe('graphToDot', () => {
  it('labels nodes with op type and shapes, dashes control edges and clusters subgraphs', () => {
    const dot = graphToDot(controlFlowGraph());
    expect(dot.startsWith('digraph "main" {')).toBe(true);
    expect(dot).toMatch(/label="relu\\nRelu\\nfloat32\[batch,4\]"/);
    expect(dot).toMatch(/label="fused\\ntsge::FusedThing\\nfloat32\[batch,1,1,4\]"/);
    expect(dot.match(/style=dashed/g)?.length).toBe(2);
    expect(dot.match(/subgraph cluster_\d+ \{/g)?.length).toBe(4);
    expect(dot).toContain('label="then_branch"');
    expect(dot).toMatch(/-> n\d+_\d+ \[style=dotted, lhead=cluster_0\]/);
    // balanced braces: a well-formed document
    expect(dot.split('{').length).toBe(dot.split('}').length);
  });

  it('escapes names that contain quotes, backslashes and newlines', () => {
    const b = new GraphBuilder('we"ird');
    const x = b.input('x"\\\n', 'float32', [1]);
    b.output(x);
    const dot = graphToDot(b.build(), { showShapes: false, rankDir: 'LR' });
    expect(dot).toContain('digraph "we\\"ird" {');
    expect(dot).toContain('label="x\\"\\\\\\n\\nData"');
    expect(dot).toContain('rankdir=LR;');
  });
});

describe('describeGraph', () => {
  it('tells graphs apart by attribute, desc and edge differences', () => {
    const a = controlFlowGraph();
    expect(graphsStructurallyEqual(a, controlFlowGraph())).toBe(true);
    const b = controlFlowGraph();
    b.findNode('relu')?.opDesc.attrs.set('a_int', attr.int(1));
    expect(graphsStructurallyEqual(a, b)).toBe(false);
    const c = controlFlowGraph();
    (c.findNode('relu')?.opDesc.outputDescs as unknown[])[0] = createTensorDesc('float32', ['batch', 5]);
    expect(graphsStructurallyEqual(a, c)).toBe(false);
    const d = controlFlowGraph();
    d.removeControlEdge(d.findNode('barrier') as never, d.findNode('if') as never);
    expect(graphsStructurallyEqual(a, d)).toBe(false);
    expect(describeGraph(a)).toContain("float32['batch',4]");
  });
});
