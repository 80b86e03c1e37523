import { describe, expect, it } from 'vitest';
import { describeGraph } from '../dump/describe-graph.js';
import { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import { createOpDesc } from '../graph/op-desc.js';
import { type AttrValue, attr } from '../types/attr.js';
import { DATA_TYPES, type DataType } from '../types/dtype.js';
import { FORMATS } from '../types/format.js';
import type { Dim } from '../types/shape.js';
import { createTensorDesc } from '../types/tensor-desc.js';
import { sampleTensor } from './air-fixtures.test-util.js';
import { parseAir } from './parse-air.js';
import { serializeAir } from './serialize-air.js';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random DAG: random types, domains, descs (symbols, unknown rank, ranges), attributes, omitted inputs and control edges. */
function randomGraph(seed: number): Graph {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const int = (n: number): number => Math.floor(random() * n);
  const dim = (): Dim => pick<Dim>([0, 1, 7, -1, 'batch', 'seq', 2 ** 40]);
  const desc = () => {
    const d = createTensorDesc(pick(DATA_TYPES), random() < 0.1 ? [-2] : Array.from({ length: int(5) }, dim), pick(FORMATS));
    if (random() < 0.3) d.originShape = Array.from({ length: int(4) }, dim);
    if (random() < 0.2) d.shapeRange = d.shape.map(() => [int(4), random() < 0.5 ? -1 : 8] as const);
    if (random() < 0.1) d.valueKind = pick(['tensor', 'sequence', 'optional'] as const);
    return d;
  };
  const attrValue = (): AttrValue =>
    pick<() => AttrValue>([
      () => attr.int(int(2 ** 31) - 2 ** 30),
      () => attr.float(Math.fround(random() * 100 - 50)),
      () => attr.string(`s${int(1000)}✓`),
      () => attr.bool(random() < 0.5),
      () => attr.ints(Array.from({ length: int(4) }, () => int(100) - 50)),
      () => attr.floats(Array.from({ length: int(4) }, () => Math.fround(random()))),
      () => attr.strings(Array.from({ length: int(3) }, () => `t${int(9)}`)),
      () => attr.tensor(sampleTensor(pick(DATA_TYPES) as DataType)),
      () => attr.dtype(pick(DATA_TYPES)),
      () => attr.tensorDesc(desc()),
      () => attr.listListInt([[int(5)], [], [int(5), int(5)]]),
    ])();
  const g = new Graph(`random_${seed}`);
  const nodes: Node[] = [];
  const count = 2 + int(25);
  for (let i = 0; i < count; i++) {
    const inputs = nodes.length ? int(4) : 0;
    const outputs = 1 + int(3);
    const attrs: [string, AttrValue][] = Array.from({ length: int(4) }, (_, k) => [`a${k}`, attrValue()]);
    const node = g.addNode(
      createOpDesc({
        name: `n${i}${random() < 0.1 ? ':x' : ''}`,
        type: pick(['Add', 'Conv', 'Custom', 'Split']),
        domain: pick(['ai.onnx', '', 'tsge', 'com.example']),
        attrs,
        inputDescs: Array.from({ length: inputs }, desc),
        outputDescs: Array.from({ length: outputs }, desc),
        outputNames: random() < 0.5 ? Array.from({ length: outputs }, (_, k) => `out${i}_${k}`) : [],
      }),
    );
    for (let k = 0; k < inputs; k++) {
      if (random() < 0.2) continue; // an omitted optional input
      const producer = pick(nodes);
      g.addEdge(producer, int(producer.outData.length), node, k);
    }
    if (nodes.length && random() < 0.3) g.addControlEdge(pick(nodes), node);
    if (random() < 0.2) node.opDesc.streamId = int(4);
    if (random() < 0.2) node.opDesc.outputOffsets = node.outData.map(() => int(1 << 20) * 64);
    nodes.push(node);
  }
  return g;
}

describe('.air round trip of random graphs', () => {
  it('keeps 40 random graphs structurally equal', () => {
    const mismatches: number[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const g = randomGraph(seed);
      const result = parseAir(serializeAir(g));
      if (!result.graph || result.diagnostics.length || describeGraph(result.graph) !== describeGraph(g)) mismatches.push(seed);
    }
    if (mismatches.length) {
      // show the first difference in full
      const g = randomGraph(mismatches[0] as number);
      const result = parseAir(serializeAir(g));
      expect(result.diagnostics).toEqual([]);
      expect(describeGraph(result.graph as Graph)).toBe(describeGraph(g));
    }
    expect(mismatches).toEqual([]);
  });
});
