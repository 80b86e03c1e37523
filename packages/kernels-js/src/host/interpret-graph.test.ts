import {
  ATTR_INDEX,
  ATTR_PARENT_NODE_INDEX,
  DATA,
  Graph,
  NET_OUTPUT,
  type Node,
  attr,
  createOpDesc,
  createTensor,
  createTensorDesc,
  isHostTensor,
} from '@tsge/metadef';
import { createKernelRegistry } from '@tsge/metadef';
import { defineKernel } from '../define.js';
import { describe, expect, it } from 'vitest';
import { interpretGraph } from './interpret-graph.js';

const desc = createTensorDesc('float32', [2]);
function data(g: Graph, name: string, index: number, extra: [string, ReturnType<typeof attr.int>][] = []): Node {
  return g.addNode(
    createOpDesc({
      name,
      type: DATA,
      attrs: [[ATTR_INDEX, attr.int(index)], ...extra],
      inputDescs: [desc],
      outputDescs: [desc],
      outputNames: [name],
    }),
  );
}
function op(g: Graph, type: string, inputs: number, name = type): Node {
  return g.addNode(createOpDesc({ name, type, outputDescs: [desc], inputDescs: Array.from({ length: inputs }, () => desc) }), {
    inputs,
    outputs: 1,
  });
}
function netOutput(g: Graph, from: Node): void {
  const out = g.addNode(createOpDesc({ name: NET_OUTPUT, type: NET_OUTPUT, inputDescs: [desc], inputNames: ['y'] }), {
    inputs: 1,
    outputs: 0,
  });
  g.addEdge(from, 0, out, 0);
}

/** Test kernels: Neg, and an If that records how many inputs it saw. */
const seen: number[] = [];
const kernels = createKernelRegistry([
  defineKernel({
    opType: 'Neg',
    compute: (ctx) => {
      const x = ctx.tensor(0);
      if (!x) throw new Error('Neg needs an input');
      const y = ctx.output(0, x.dims, 'float32');
      for (let i = 0; i < x.data.length; i++) (y.data as Float32Array)[i] = -(x.data[i] as number);
    },
  }),
  defineKernel({
    opType: 'If',
    compute: (ctx) => {
      seen.push(ctx.inputCount);
      const cond = ctx.tensor(0)?.data[0];
      const [out] = ctx.runSubgraph(cond ? 'then_branch' : 'else_branch', []);
      if (out) ctx.setOutput(0, out);
    },
  }),
]);

describe('interpretGraph', () => {
  it('runs subgraphs with implicit inputs taken from the parent node', () => {
    const root = new Graph('root');
    const cond = data(root, 'c', 0);
    const x = data(root, 'x', 1);
    const ifNode = root.addNode(
      createOpDesc({ name: 'if', type: 'If', attrs: [['_implicit_inputs', attr.int(1)]], inputDescs: [desc, desc], outputDescs: [desc] }),
      { inputs: 2, outputs: 1 },
    );
    root.addEdge(cond, 0, ifNode, 0);
    root.addEdge(x, 0, ifNode, 1);
    netOutput(root, ifNode);
    for (const [branch, negate] of [
      ['then_branch', true],
      ['else_branch', false],
    ] as const) {
      const sub = new Graph(`if/${branch}`);
      const captured = data(sub, 'x', 0, [
        [ATTR_PARENT_NODE_INDEX, attr.int(1)],
        ['_implicit_input', attr.bool(true)],
      ]);
      let last = captured;
      if (negate) {
        const neg = op(sub, 'Neg', 1);
        sub.addEdge(captured, 0, neg, 0);
        last = neg;
      }
      netOutput(sub, last);
      ifNode.opDesc.attrs.set(branch, attr.graph(sub.name));
      ifNode.opDesc.subgraphNames.push(sub.name);
      root.addSubgraph(sub, ifNode);
    }
    const input = createTensor('float32', [2], Float32Array.of(1, -2));
    const yes = interpretGraph(root, [createTensor('bool', [], Uint8Array.of(1)), input], { kernels });
    expect(isHostTensor(yes[0]) && [...(yes[0].data as Float32Array)]).toEqual([-1, 2]);
    const no = interpretGraph(root, [createTensor('bool', [], Uint8Array.of(0)), input], { kernels });
    expect(isHostTensor(no[0]) && [...(no[0].data as Float32Array)]).toEqual([1, -2]);
    // the kernel sees only the ONNX input (the condition), not the captured value
    expect(seen).toEqual([1, 1]);
  });

  it('names the op when no kernel exists', () => {
    const g = new Graph('g');
    const x = data(g, 'x', 0);
    const n = op(g, 'Frobnicate', 1);
    g.addEdge(x, 0, n, 0);
    netOutput(g, n);
    expect(() => interpretGraph(g, [createTensor('float32', [2])], { kernels })).toThrow(/Frobnicate/);
  });
});
