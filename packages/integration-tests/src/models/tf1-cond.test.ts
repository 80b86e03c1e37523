// A TF1 cond (Switch/Merge, as tf.cond lowers it) becomes an If with two subgraphs; both branches
// run, on either predicate, and match TensorFlow.js 4.22.0 (wasm backend) on the same GraphDef.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import { type HostTensor, createTensor, isHostTensor } from '@tsge/metadef';
import { compareTensors, createRandom, randomTensor } from '@tsge/run';
import { describe, expect, it } from 'vitest';
import { type NodeJson, TF_PROTO, constNode, graphBytes, placeholder } from './tf-graph-fixture.js';
import { graphDefToArtifacts, runTfjsGraph } from './tfjs-reference.js';

const F = { T: { type: 'DT_FLOAT' } };

/** out = pred ? relu(x @ w) * 2 : -(x + y), with nested cond in the true branch on (sum(x) > 0). */
function condGraph(): NodeJson[] {
  return [
    placeholder('x', [2, 3]),
    placeholder('y', [2, 3]),
    placeholder('pred', [], 'DT_BOOL'),
    constNode('w', [3, 3], [0.5, -1, 2, 1, 0.25, -0.5, -2, 1, 0.75]),
    { name: 'cond/switch_pred', op: 'Switch', input: ['pred', 'pred'], attr: { T: { type: 'DT_BOOL' } } },
    { name: 'cond/pivot_t', op: 'Identity', input: ['cond/switch_pred:1'], attr: { T: { type: 'DT_BOOL' } } },
    { name: 'cond/pivot_f', op: 'Identity', input: ['cond/switch_pred'], attr: { T: { type: 'DT_BOOL' } } },
    { name: 'cond/Switch_x', op: 'Switch', input: ['x', 'pred'], attr: F },
    { name: 'cond/Switch_y', op: 'Switch', input: ['y', 'pred'], attr: F },
    { name: 'cond/Switch_w', op: 'Switch', input: ['w', 'pred'], attr: F },
    // true branch: a constant that lives in the branch (control edge on the pivot)
    { ...constNode('cond/two', [], [2]), input: ['^cond/pivot_t'] },
    { name: 'cond/mm', op: 'MatMul', input: ['cond/Switch_x:1', 'cond/Switch_w:1'], attr: F },
    { name: 'cond/relu', op: 'Relu', input: ['cond/mm'], attr: F },
    { name: 'cond/scaled', op: 'Mul', input: ['cond/relu', 'cond/two'], attr: F },
    // nested cond inside the true branch: scaled if sum(x) > 0 else scaled - 1
    { ...constNode('cond/axes', [2], [0, 1], 'DT_INT32'), input: ['^cond/pivot_t'] },
    { name: 'cond/sum', op: 'Sum', input: ['cond/Switch_x:1', 'cond/axes'], attr: { ...F, Tidx: { type: 'DT_INT32' } } },
    { ...constNode('cond/zero', [], [0]), input: ['^cond/pivot_t'] },
    { name: 'cond/positive', op: 'Greater', input: ['cond/sum', 'cond/zero'], attr: F },
    { name: 'cond/inner/Switch', op: 'Switch', input: ['cond/scaled', 'cond/positive'], attr: F },
    { name: 'cond/inner/keep', op: 'Identity', input: ['cond/inner/Switch:1'], attr: F },
    { ...constNode('cond/inner/one', [], [1]), input: ['^cond/inner/Switch'] },
    { name: 'cond/inner/less', op: 'Sub', input: ['cond/inner/Switch', 'cond/inner/one'], attr: F },
    { name: 'cond/inner/Merge', op: 'Merge', input: ['cond/inner/less', 'cond/inner/keep'], attr: { ...F, N: { i: 2 } } },
    // false branch
    { name: 'cond/add', op: 'AddV2', input: ['cond/Switch_x', 'cond/Switch_y'], attr: F },
    { name: 'cond/neg', op: 'Neg', input: ['cond/add'], attr: F },
    { name: 'cond/Merge', op: 'Merge', input: ['cond/neg', 'cond/inner/Merge'], attr: { ...F, N: { i: 2 } } },
    { name: 'out', op: 'Identity', input: ['cond/Merge'], attr: F },
  ];
}

describe('a TF1 cond (Switch/Merge)', () => {
  it('becomes an If with subgraphs and matches TensorFlow.js on both predicates', async () => {
    const bytes = graphBytes(condGraph());
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-cond-')), 'cond.pb');
    writeFileSync(file, bytes);
    const graph = await parseModel(file);
    const ifs = graph.nodes.filter((n) => n.type === 'If');
    expect(ifs).toHaveLength(1);
    expect(graph.nodes.some((n) => n.type === 'Switch' || n.type === 'Merge')).toBe(false);
    // the nested cond is an If inside the outer then-branch
    expect([...graph.subgraphs.values()].some((g) => g.nodes.some((n) => n.type === 'If'))).toBe(true);
    const om = await buildModel(graph, {});
    const model = await loadModel(om, { threads: 1 });
    try {
      const random = createRandom(11);
      for (const [pred, sign] of [
        [true, 1],
        [true, -1],
        [false, 1],
      ] as const) {
        const x = randomTensor('float32', [2, 3], random);
        // sign flips sum(x) for the nested cond
        const xs = x.data as Float32Array;
        const sum = xs.reduce((a, b) => a + b, 0);
        if (Math.sign(sum) !== sign) for (let i = 0; i < xs.length; i++) xs[i] = -(xs[i] as number);
        const feeds: Record<string, HostTensor> = {
          x,
          y: randomTensor('float32', [2, 3], random),
          pred: createTensor('bool', [], Uint8Array.of(pred ? 1 : 0)),
        };
        const got = await model.run(feeds);
        const expected = await runTfjsGraph({ load: async () => graphDefToArtifacts(bytes, TF_PROTO) }, feeds, ['out']);
        const value = got.out;
        expect(isHostTensor(value)).toBe(true);
        const error = compareTensors('out', value as HostTensor, expected.out as HostTensor);
        expect(error.shapeMatches).toBe(true);
        expect(error.maxRelError, `pred ${pred}, sum sign ${sign}`).toBeLessThanOrEqual(1e-5);
      }
    } finally {
      await model.release();
    }
  }, 120_000);
});
