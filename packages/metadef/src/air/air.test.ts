import { describe, expect, it } from 'vitest';
import { describeGraph, graphsStructurallyEqual } from '../dump/describe-graph.js';
import { Graph } from '../graph/graph.js';
import { createOpDesc } from '../graph/op-desc.js';
import { createTensorDesc } from '../types/tensor-desc.js';
import { verifyGraph } from '../verify/verify-graph.js';
import { controlFlowGraph, everyDtypeGraph } from './air-fixtures.test-util.js';
import { parseAir } from './parse-air.js';
import { serializeAir } from './serialize-air.js';

function roundTrip(graph: Graph): Graph {
  const result = parseAir(serializeAir(graph), { fileName: 'x.air' });
  expect(result.diagnostics).toEqual([]);
  expect(result.graph).toBeDefined();
  return result.graph as Graph;
}

describe('.air round trip', () => {
  it('keeps subgraphs (If then/else, nested Loop), control edges, every attribute kind and symbolic shapes', () => {
    const g = controlFlowGraph();
    const back = roundTrip(g);
    expect(describeGraph(back)).toBe(describeGraph(g));
    expect(graphsStructurallyEqual(back, g)).toBe(true);
    expect([...back.subgraphs.keys()]).toEqual(['then_branch', 'outer_body', 'inner_body', 'else_branch']);
    const inner = back.subgraph('inner_body');
    expect(inner?.parentNode?.name).toBe('outer_body_inner_loop');
    expect(inner?.parentNode?.graph?.name).toBe('outer_body');
    expect(back.findNode('if')?.inControl.peers.map((p) => p.node.name)).toEqual(['barrier']);
    expect(back.findNode('fused')?.opDesc.domain).toBe('tsge');
    expect(back.findNode('fused')?.inData[1]?.peer).toBeUndefined();
    expect(back.findNode('x')?.opDesc.outputDescs[0]?.shape).toEqual(['batch', 4]);
    // a second trip gives the same bytes
    expect(serializeAir(back)).toEqual(serializeAir(g));
  });

  it('keeps a tensor of every data type byte for byte', () => {
    const g = everyDtypeGraph();
    const back = roundTrip(g);
    expect(describeGraph(back)).toBe(describeGraph(g));
    const int64 = back.findNode('c_int64')?.opDesc.attrs.get('value');
    expect(int64?.kind === 'tensor' && int64.value.data).toEqual(
      new BigInt64Array([0n, -1234567890123n, -2469135780246n, -3703703670369n, -4938271560492n, -6172839450615n]),
    );
    const int4 = back.findNode('c_int4')?.opDesc.attrs.get('value');
    expect(int4?.kind === 'tensor' && Array.from(int4.value.data as Int8Array)).toEqual([-3, -2, -1, 0, 1, 2]);
  });

  it('reads from a Node Buffer and copies what it keeps', () => {
    const g = controlFlowGraph();
    const buffer = Buffer.from(serializeAir(g));
    const back = parseAir(buffer).graph as Graph;
    buffer.fill(0);
    expect(describeGraph(back)).toBe(describeGraph(g));
    expect(verifyGraph(back)).toEqual(verifyGraph(g));
  });

  it('saturates int64 attributes to ±(2^53-1)', () => {
    const g = new Graph('g');
    g.addNode(
      createOpDesc({
        name: 'n',
        type: 'T',
        attrs: [['big', { kind: 'ints', value: [2 ** 60, -(2 ** 60), 5] }]],
        outputDescs: [createTensorDesc('float32', [1])],
      }),
    );
    const back = roundTrip(g);
    expect(back.findNode('n')?.opDesc.attrs.get('big')).toEqual({
      kind: 'ints',
      value: [Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 5],
    });
  });
});
