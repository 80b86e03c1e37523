// A frozen GraphDef with a function library: TF2 functional control flow (`While` with cond/body
// FunctionDefs, `StatelessIf` with branch FunctionDefs) and a `PartitionedCall` are inlined as the
// SavedModel path inlines calls, become Loop / If subgraphs, and match TensorFlow.js 4.22.0 (wasm
// backend) on the same GraphDef.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import { type HostTensor, createTensor, isHostTensor } from '@tsge/metadef';
import { compareTensors, createRandom, randomTensor } from '@tsge/run';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { TF_PROTO, constNode, placeholder } from './tf-graph-fixture.js';
import { graphDefToArtifacts, runTfjsGraph } from './tfjs-reference.js';

const f = { type: 'DT_FLOAT' };
const i32 = { type: 'DT_INT32' };
const fn = (name: string, inputs: [string, object][], outputs: [string, object][], nodeDef: object[], ret: Record<string, string>) => ({
  signature: {
    name,
    inputArg: inputs.map(([n, type]) => ({ name: n, type: (type as { type: string }).type })),
    outputArg: outputs.map(([n, type]) => ({ name: n, type: (type as { type: string }).type })),
  },
  nodeDef,
  ret,
});
const loopTypes = [i32, f, i32, i32, f];
const loopArgs = (prefix: string): [string, object][] =>
  ['i', 'acc', 'n', 'one', 'half'].map((n, k) => [`${prefix}${n}`, loopTypes[k] as object]);

/** while i < n: acc = acc · half + 1·acc² / 4 … written as FunctionDefs; then If(pred) relu : neg; and a call squaring it. */
/**
 * `inlineCall: true` writes the call's body in its place, as tfjs's converter does offline (tfjs
 * runs While and StatelessIf but has no PartitionedCall kernel): the reference runs that form.
 */
function functionalGraph(inlineCall = false): Uint8Array {
  const library = [
    fn('cond_fn', loopArgs(''), [['ok', { type: 'DT_BOOL' }]], [{ name: 'less', op: 'Less', input: ['i', 'n'], attr: { T: i32 } }], {
      ok: 'less:z:0',
    }),
    fn(
      'body_fn',
      loopArgs(''),
      loopArgs('out_'),
      [
        { name: 'next_i', op: 'AddV2', input: ['i', 'one'], attr: { T: i32 } },
        { name: 'scaled', op: 'Mul', input: ['acc', 'half'], attr: { T: f } },
        { name: 'sq', op: 'Mul', input: ['acc', 'acc'], attr: { T: f } },
        { name: 'sq_half', op: 'Mul', input: ['sq:z:0', 'half'], attr: { T: f } },
        { name: 'next_acc', op: 'Sub', input: ['scaled:z:0', 'sq_half:z:0'], attr: { T: f } },
      ],
      { out_i: 'next_i:z:0', out_acc: 'next_acc:z:0', out_n: 'n', out_one: 'one', out_half: 'half' },
    ),
    fn('then_fn', [['a', f]], [['r', f]], [{ name: 'relu', op: 'Relu', input: ['a'], attr: { T: f } }], { r: 'relu:activations:0' }),
    fn('else_fn', [['a', f]], [['r', f]], [{ name: 'neg', op: 'Neg', input: ['a'], attr: { T: f } }], { r: 'neg:y:0' }),
    fn('square_fn', [['v', f]], [['s', f]], [{ name: 'sq', op: 'Mul', input: ['v', 'v'], attr: { T: f } }], { s: 'sq:z:0' }),
  ];
  const node = [
    placeholder('x', [2, 3]),
    placeholder('n', [], 'DT_INT32'),
    placeholder('pred', [], 'DT_BOOL'),
    constNode('zero', [], [0], 'DT_INT32'),
    constNode('one', [], [1], 'DT_INT32'),
    constNode('half', [], [0.5]),
    {
      name: 'loop',
      op: 'While',
      input: ['zero', 'x', 'n', 'one', 'half'],
      attr: {
        T: { list: { type: loopTypes.map((t) => t.type) } },
        cond: { func: { name: 'cond_fn' } },
        body: { func: { name: 'body_fn' } },
        parallel_iterations: { i: 10 },
      },
    },
    {
      name: 'branch',
      op: 'StatelessIf',
      input: ['pred', 'loop:1'],
      attr: {
        Tcond: { type: 'DT_BOOL' },
        Tin: { list: { type: ['DT_FLOAT'] } },
        Tout: { list: { type: ['DT_FLOAT'] } },
        then_branch: { func: { name: 'then_fn' } },
        else_branch: { func: { name: 'else_fn' } },
      },
    },
    inlineCall
      ? { name: 'call', op: 'Mul', input: ['branch', 'branch'], attr: { T: f } }
      : {
          name: 'call',
          op: 'PartitionedCall',
          input: ['branch'],
          attr: { Tin: { list: { type: ['DT_FLOAT'] } }, Tout: { list: { type: ['DT_FLOAT'] } }, f: { func: { name: 'square_fn' } } },
        },
    { name: 'result', op: 'Identity', input: ['call'], attr: { T: f } },
    { name: 'count', op: 'Identity', input: ['loop'], attr: { T: i32 } },
  ];
  const GraphDef = protobuf.loadSync(TF_PROTO).lookupType('tensorflow.GraphDef');
  return GraphDef.encode(GraphDef.fromObject({ node, library: { function: library }, versions: { producer: 1 } })).finish();
}

describe('a frozen GraphDef with a function library', () => {
  it('inlines While / StatelessIf / PartitionedCall into Loop and If subgraphs that match TensorFlow.js', async () => {
    const bytes = functionalGraph();
    const reference = functionalGraph(true);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-functional-')), 'functional.pb');
    writeFileSync(file, bytes);
    const graph = await parseModel(file);
    const types = graph.nodes.map((n) => n.type);
    expect(types.filter((t) => t === 'Loop')).toHaveLength(1);
    expect(types.filter((t) => t === 'If')).toHaveLength(1);
    expect(types.some((t) => /While|If$|PartitionedCall|Enter|Merge|Switch/.test(t) && t !== 'If')).toBe(false);
    const model = await loadModel(await buildModel(graph, {}), { threads: 1 });
    try {
      const random = createRandom(21);
      for (const [n, pred] of [
        [0, true],
        [3, true],
        [4, false],
      ] as const) {
        const feeds: Record<string, HostTensor> = {
          x: randomTensor('float32', [2, 3], random),
          n: createTensor('int32', [], Int32Array.of(n)),
          pred: createTensor('bool', [], Uint8Array.of(pred ? 1 : 0)),
        };
        const got = await model.run(feeds);
        const expected = await runTfjsGraph({ load: async () => graphDefToArtifacts(reference, TF_PROTO) }, feeds, ['result', 'count']);
        const result = got.result as HostTensor;
        expect(isHostTensor(result)).toBe(true);
        expect(compareTensors('result', result, expected.result as HostTensor).maxRelError, `n ${n}`).toBeLessThanOrEqual(1e-5);
        expect(Array.from((got.count as HostTensor).data, Number)).toEqual(Array.from((expected.count as HostTensor).data, Number));
      }
    } finally {
      await model.release();
    }
  }, 120_000);
});
