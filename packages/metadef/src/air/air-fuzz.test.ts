import { describe, expect, it } from 'vitest';
import { ge } from '../generated/ge-ir.js';
import { GraphBuilder } from '../builder/graph-builder.js';
import type { Graph } from '../graph/graph.js';
import { attr } from '../types/attr.js';
import { createTensor } from '../types/tensor.js';
import { createTensorDesc } from '../types/tensor-desc.js';
import { controlFlowGraph } from './air-fixtures.test-util.js';
import { parseAir } from './parse-air.js';
import { serializeAir } from './serialize-air.js';

/** mulberry32: a small seeded PRNG so failures reproduce. */
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

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function mutate(source: Uint8Array, random: () => number): Uint8Array {
  const pick = (n: number): number => Math.floor(random() * n);
  let bytes: Uint8Array = new Uint8Array(source);
  const rounds = 1 + pick(4);
  for (let r = 0; r < rounds; r++) {
    switch (pick(5)) {
      case 0: // flip bits
        for (let k = 0; k < 1 + pick(8); k++) if (bytes.length) bytes[pick(bytes.length)] ^= 1 << pick(8);
        break;
      case 1: // truncate
        bytes = bytes.slice(0, pick(bytes.length + 1));
        break;
      case 2: {
        // insert random bytes
        const at = pick(bytes.length + 1);
        const extra = Uint8Array.from({ length: 1 + pick(16) }, () => pick(256));
        bytes = concat(bytes.subarray(0, at), extra, bytes.subarray(at));
        break;
      }
      case 3: {
        // duplicate a slice
        const from = pick(bytes.length + 1);
        const to = Math.min(bytes.length, from + pick(64));
        const at = pick(bytes.length + 1);
        bytes = concat(bytes.subarray(0, at), bytes.subarray(from, to), bytes.subarray(at));
        break;
      }
      default: // overwrite with a large varint (forged lengths and counts)
        if (bytes.length > 5) bytes.set([0xff, 0xff, 0xff, 0xff, 0x0f], pick(bytes.length - 5));
    }
  }
  return bytes;
}

/** A compact graph touching every reader path: subgraphs, control edges, attributes, tensors, symbols. */
function fuzzSource(): Graph {
  const body = new GraphBuilder('body');
  const v = body.input('v', 'float32', ['n', 2], { parentIndex: 1 });
  body.output(body.op('Neg', [v], { name: 'neg', outputDescs: [createTensorDesc('float32', ['n', 2])] }));
  const b = new GraphBuilder('main');
  const x = b.input('x', 'float32', ['n', 2]);
  const c = b.constant('c', createTensor('string', [2], ['ab', 'c']));
  const k = b.constant('k', createTensor('int64', [2], new BigInt64Array([1n, -2n])));
  const attrs = {
    ints: attr.ints([1, -1]),
    f: attr.float(0.5),
    s: attr.string('x'),
    t: attr.tensor(createTensor('int4', [3], new Int8Array([1, -2, 3]))),
    dt: attr.dtypes(['uint4']),
  };
  const call = b.op('PartitionedCall', [c, x, k], {
    name: 'call',
    subgraphs: { f: body.build() },
    attrs,
    domain: 'tsge',
    outputDescs: [createTensorDesc('float32', ['n', 2])],
  });
  b.graph.addControlEdge(k.node, call.node);
  b.output(call, 'y');
  return b.build();
}

describe('.air reader on mutated input', () => {
  it('returns a graph or diagnostics for 1,200 mutated files and never throws', () => {
    const sources = [serializeAir(fuzzSource()), serializeAir(controlFlowGraph())];
    const random = prng(20261129);
    const failures: string[] = [];
    let withGraph = 0;
    let withErrors = 0;
    // plain checks in the loop (expect() per iteration is slow); one assertion at the end
    for (let i = 0; i < 1200; i++) {
      const bytes = mutate(sources[i % 7 === 0 ? 1 : 0] as Uint8Array, random);
      try {
        const result = parseAir(bytes, { fileName: `mutant-${i}.air` });
        // the reader's safety net names a raw exception: it must never be needed
        const internal = result.diagnostics.find((d) => /\w+Error: /.test(d.message));
        if (internal) failures.push(`mutation ${i}: ${internal.message}`);
        if (result.graph) withGraph++;
        else if (result.diagnostics.some((d) => d.severity === 'error' && /^TSGE-E2\d{3}$/.test(d.code))) withErrors++;
        else failures.push(`mutation ${i}: no graph and no E2xxx error`);
      } catch (error) {
        failures.push(`mutation ${i} threw ${String(error)}`);
      }
    }
    expect(failures).toEqual([]);
    // both outcomes occur: the mutations reach the reader's checks, not only the decoder
    expect(withGraph).toBeGreaterThan(20);
    expect(withErrors).toBeGreaterThan(50);
  });
});

describe('.air reader diagnostics', () => {
  const model = (graph: ge.proto.IGraphDef, extra: ge.proto.IGraphDef[] = []): Uint8Array =>
    ge.proto.ModelDef.encode({ name: 'm', graph: [graph, ...extra] }).finish();
  const desc = { dtype: 1, shape: { dim: [2] }, layout: 'ND' };
  const codes = (bytes: Uint8Array): string[] => parseAir(bytes, { fileName: 'f.air' }).diagnostics.map((d) => d.code);

  it('rejects input that is not protobuf, is empty of graphs, or is truncated', () => {
    expect(codes(new Uint8Array([0xff, 0xff, 0xff]))).toEqual(['TSGE-E2003']);
    expect(codes(new Uint8Array(0))).toEqual(['TSGE-E2001']);
    const good = serializeAir(controlFlowGraph());
    const truncated = parseAir(good.subarray(0, good.length - 10), { fileName: 'cut.air' });
    expect(truncated.graph).toBeUndefined();
    expect(truncated.diagnostics[0]?.code).toBe('TSGE-E2003');
    expect(truncated.diagnostics[0]?.location?.file).toBe('cut.air');
    expect(parseAir('not bytes' as unknown as Uint8Array).diagnostics[0]?.code).toBe('TSGE-E2001');
  });

  it('names unknown producers, bad output indices, malformed inputs and duplicate names', () => {
    const bytes = model({
      name: 'g',
      op: [
        { name: 'a', type: 'Data', output_desc: [desc] },
        { name: 'b', type: 'Relu', input: ['zz:0'], input_desc: [desc], output_desc: [desc] },
        { name: 'c', type: 'Relu', input: ['a:3'], input_desc: [desc], output_desc: [desc] },
        { name: 'd', type: 'Relu', input: ['a:x'], input_desc: [desc], output_desc: [desc] },
        { name: 'd', type: 'Relu', input: ['a:0'], input_desc: [desc], output_desc: [desc] },
      ],
    });
    const result = parseAir(bytes, { fileName: 'f.air' });
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code).sort()).toEqual(['TSGE-E2101', 'TSGE-E2102', 'TSGE-E2103', 'TSGE-E2108']);
    const unknown = result.diagnostics.find((d) => d.code === 'TSGE-E2101');
    expect(unknown?.location).toEqual({ file: 'f.air', graph: 'g', node: 'b' });
    expect(unknown?.message).toContain('zz');
  });

  it('bounds ranks and tensor sizes before allocating', () => {
    const huge = { dtype: 1, shape: { dim: [1e12, 1e12] } };
    const bytes = model({
      name: 'g',
      op: [
        { name: 'r', type: 'Relu', output_desc: [{ dtype: 1, shape: { dim: new Array(65).fill(1) } }] },
        { name: 'k', type: 'Const', attr: { value: { t: { desc: huge, data: new Uint8Array(16) } } }, output_desc: [desc] },
        { name: 'w', type: 'Const', attr: { value: { t: { desc, data: new Uint8Array(3) } } }, output_desc: [desc] },
        {
          name: 's',
          type: 'Const',
          attr: { value: { t: { desc: { dtype: 13, shape: { dim: [1] } }, data: new Uint8Array([200, 0, 0, 0, 65]) } } },
          output_desc: [desc],
        },
      ],
    });
    expect(codes(bytes).sort()).toEqual(['TSGE-E2004', 'TSGE-E2104', 'TSGE-E2104', 'TSGE-E2104']);
  });

  it('rejects unknown data types, orphan subgraphs, missing subgraphs and newer format versions', () => {
    expect(codes(model({ name: 'g', op: [{ name: 'q', type: 'T', output_desc: [{ dtype: 18, shape: { dim: [] } }] }] }))).toEqual([
      'TSGE-E2105',
    ]);
    expect(codes(model({ name: 'g', op: [{ name: 'i', type: 'If', subgraph_name: ['nope'] }] }))).toEqual(['TSGE-E2107']);
    expect(codes(model({ name: 'g' }, [{ name: 'orphan' }]))).toEqual(['TSGE-E2106']);
    expect(codes(model({ name: 'g' }, [{ name: 'g' }]))).toEqual(['TSGE-E2109']);
    const future = ge.proto.ModelDef.encode({ graph: [{ name: 'g' }], attr: { _tsge_air_version: { i: 99 } } }).finish();
    expect(codes(future)).toEqual(['TSGE-E2002']);
  });

  it('warns that a graph body embedded in an attribute is not read', () => {
    const bytes = model({
      name: 'g',
      op: [{ name: 'n', type: 'T', attr: { body: { g: { name: 'b', op: [{ name: 'inner', type: 'Relu' }] } } } }],
    });
    const result = parseAir(bytes);
    expect(result.graph?.findNode('n')?.opDesc.attrs.get('body')).toEqual({ kind: 'graph', value: 'b' });
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([['TSGE-E2108', 'warning']]);
  });

  it('reads a plain GE file: parents from subgraph_name, control inputs, DT_UNDEFINED as a warning', () => {
    const bytes = model(
      {
        name: 'main',
        op: [
          { name: 'x', type: 'Data', attr: { index: { i: 0 } }, input_desc: [desc], output_desc: [desc] },
          { name: 'p', type: 'PartitionedCall', input: ['x:0', 'x:-1'], subgraph_name: ['f'], input_desc: [desc], output_desc: [desc] },
          { name: 'out', type: 'NetOutput', input: ['p:0'], input_desc: [{ shape: { dim: [2] } }] },
        ],
      },
      [{ name: 'f', op: [{ name: 'fx', type: 'Data', attr: { index: { i: 0 }, _parent_node_index: { i: 0 } }, output_desc: [desc] }] }],
    );
    const result = parseAir(bytes);
    expect(result.graph).toBeDefined();
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([['TSGE-E2105', 'warning']]);
    const g = result.graph;
    expect(g?.subgraph('f')?.parentNode?.name).toBe('p');
    expect(g?.findNode('p')?.inControl.peers[0]?.node.name).toBe('x');
    expect(g?.findNode('out')?.producer(0)?.node.name).toBe('p');
  });
});
