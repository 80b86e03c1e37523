import type { Graph, GraphPassV1, HostTensor, OpRegistry } from '@tsge/metadef';
import { GraphBuilder, attr, createTensor } from '@tsge/metadef';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary, interpretGraph } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../pass-manager.js';
import { dumpIr } from '../test-dump.js';
import { commonSubexpressionPass } from './common-subexpression.js';
import { constantFoldingPass } from './constant-folding.js';
import { deadCodePass } from './dead-code.js';
import { inferShapesPass, symbolSource } from './infer-shapes.js';
import { layoutChainsPass } from './layout-chains.js';
import { removeNoopsPass } from './remove-noops.js';
import { randomFloats } from '../test-graphs.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);
const f32 = (dims: number[], seed = 1): HostTensor =>
  createTensor(
    'float32',
    dims,
    randomFloats(
      dims.reduce((a, b) => a * b, 1),
      seed,
    ),
  );
const i64 = (values: number[]): HostTensor => createTensor('int64', [values.length], BigInt64Array.from(values, BigInt));

/** Runs passes, checks the outputs are unchanged on the host, and returns the before/after dump. */
function apply(graph: Graph, passes: GraphPassV1[], feeds: Record<string, HostTensor>): { text: string; counters: Record<string, number> } {
  const before = dumpIr(graph);
  const expected = interpretGraph(graph, feeds, { kernels });
  const manager = new PassManager({ ops, target: 'js', level: 3 });
  manager.run(graph, passes, 'test');
  expect(manager.diagnostics).toEqual([]);
  const actual = interpretGraph(graph, feeds, { kernels });
  for (const [output, value] of expected.entries()) {
    const a = actual[output] as HostTensor;
    const e = value as HostTensor;
    expect(a.dims).toEqual(e.dims);
    for (const [i, v] of (e.data as Float32Array).entries()) expect((a.data as Float32Array)[i]).toBeCloseTo(v, 4);
  }
  return { text: `${before}--- after\n${dumpIr(graph)}`, counters: manager.counters };
}

describe('passes (golden IR)', () => {
  it('infer-shapes', async () => {
    const b = new GraphBuilder('infer');
    const x = b.input('x', 'float32', ['batch', 3]);
    const t = b.op('Transpose', [x], { name: 't', attrs: { perm: attr.ints([1, 0]) } });
    const w = b.constant('w', f32([2, 4]));
    const m = b.op('MatMul', [t, w], { name: 'mm' });
    b.output(m, 'y');
    const graph = b.build();
    const manager = new PassManager({ ops, target: 'js', level: 0 });
    const before = dumpIr(graph);
    manager.run(graph, [inferShapesPass(symbolSource())], 'test');
    expect(graph.findNode('mm')?.opDesc.outputDescs[0]?.shape).toEqual([3, 4]);
    await expect(`${before}--- after\n${dumpIr(graph)}`).toMatchFileSnapshot('golden/infer-shapes.txt');
  });

  it('constant-folding', async () => {
    const b = new GraphBuilder('fold', { ops });
    const x = b.input('x', 'float32', [2, 3]);
    const shape = b.op('Shape', [x], { name: 'shape' });
    const reshaped = b.op('Reshape', [x, shape], { name: 'reshape' });
    const sum = b.op('Add', [b.constant('a', f32([3], 2)), b.constant('c', f32([3], 3))], { name: 'sum' });
    b.output(b.op('Mul', [reshaped, sum], { name: 'mul' }), 'y');
    const r = apply(b.build(), [constantFoldingPass(kernels, symbolSource()), deadCodePass], { x: f32([2, 3], 7) });
    expect(r.counters.folded).toBe(2);
    await expect(r.text).toMatchFileSnapshot('golden/constant-folding.txt');
  });

  it('remove-noops', async () => {
    const b = new GraphBuilder('noops', { ops });
    const x = b.input('x', 'float32', [2, 3]);
    const id = b.op('Identity', [x], { name: 'id' });
    const drop = b.opN('Dropout', [id], 2, { name: 'drop' })[0];
    const reshape = b.op('Reshape', [drop as never, b.constant('s', i64([2, 3]))], { name: 'reshape' });
    const transpose = b.op('Transpose', [reshape], { name: 'transpose', attrs: { perm: attr.ints([0, 1]) } });
    const cast = b.op('Cast', [transpose], { name: 'cast', attrs: { to: attr.int(1) } });
    b.output(b.op('Relu', [cast], { name: 'relu' }), 'y');
    const r = apply(b.build(), [removeNoopsPass, deadCodePass], { x: f32([2, 3]) });
    expect(r.counters['noops-removed']).toBe(5);
    await expect(r.text).toMatchFileSnapshot('golden/remove-noops.txt');
  });

  it('transpose-reshape-chains', async () => {
    const b = new GraphBuilder('chains', { ops });
    const x = b.input('x', 'float32', [2, 3, 4]);
    const t1 = b.op('Transpose', [x], { name: 't1', attrs: { perm: attr.ints([1, 0, 2]) } });
    const t2 = b.op('Transpose', [t1], { name: 't2', attrs: { perm: attr.ints([0, 2, 1]) } });
    const flat = b.op('Flatten', [x], { name: 'flat' });
    const reshape = b.op('Reshape', [flat, b.constant('s', i64([4, 6]))], { name: 'reshape' });
    b.output(b.op('Relu', [t2], { name: 'relu' }), 'y');
    b.output(reshape, 'z');
    const r = apply(b.build(), [layoutChainsPass, deadCodePass], { x: f32([2, 3, 4]) });
    // merge t1/t2, sink the merged transpose below relu, skip the flatten
    expect(r.counters['chains-simplified']).toBe(3);
    await expect(r.text).toMatchFileSnapshot('golden/transpose-reshape-chains.txt');
  });

  it('transpose-sinking', async () => {
    // an NHWC region between layout transposes: bias add, relu, then the inverse transpose and a mean over H, W
    const b = new GraphBuilder('sinking', { ops });
    const x = b.input('x', 'float32', [1, 2, 3, 4]);
    const t = b.op('Transpose', [x], { name: 'to_nhwc', attrs: { perm: attr.ints([0, 2, 3, 1]) } });
    const bias = b.constant('bias', createTensor('float32', [2], Float32Array.of(0.5, -0.25)));
    const relu = b.op('Relu', [b.op('Add', [t, bias], { name: 'add' })], { name: 'relu' });
    const clip = b.op(
      'Clip',
      [
        relu,
        b.constant('lo', createTensor('float32', [], Float32Array.of(0))),
        b.constant('hi', createTensor('float32', [], Float32Array.of(0.75))),
      ],
      { name: 'clip' },
    );
    b.output(b.op('Transpose', [clip], { name: 'to_nchw', attrs: { perm: attr.ints([0, 3, 1, 2]) } }), 'y');
    b.output(b.op('ReduceMean', [clip, b.constant('axes', i64([1, 2]))], { name: 'mean', attrs: { keepdims: attr.int(0) } }), 'z');
    const r = apply(b.build(), [layoutChainsPass, deadCodePass], { x: f32([1, 2, 3, 4]) });
    expect(r.text.split('--- after')[1]).not.toContain('Transpose');
    await expect(r.text).toMatchFileSnapshot('golden/transpose-sinking.txt');
  });

  it('a Transpose moving the last axis does not sink through a reduction of that axis (a LayerNorm stays on rows)', () => {
    // PP-OCRv4's recognizer: [N, C, W] → [N, W, C], a LayerNorm written out over C and a residual Add
    const b = new GraphBuilder('rows', { ops });
    const x = b.input('x', 'float32', [1, 6, 5]);
    const t = b.op('Transpose', [x], { name: 'to_rows', attrs: { perm: attr.ints([0, 2, 1]) } });
    const last = b.constant('last', i64([-1]));
    const centered = b.op('Sub', [t, b.op('ReduceMean', [t, last], { name: 'mean' })], { name: 'centered' });
    const variance = b.op('ReduceMean', [b.op('Mul', [centered, centered], { name: 'square' }), last], { name: 'variance' });
    b.output(b.op('Div', [centered, b.op('Sqrt', [variance], { name: 'sd' })], { name: 'norm' }), 'y');
    b.output(b.op('Add', [t, b.input('r', 'float32', [1, 5, 6])], { name: 'residual' }), 'z');
    // the split copies that could not sink merge again (CSE)
    const r = apply(b.build(), [layoutChainsPass, commonSubexpressionPass, deadCodePass], { x: f32([1, 6, 5]), r: f32([1, 5, 6], 2) });
    const after = r.text.split('--- after')[1] as string;
    // one Transpose, the reductions still over the last axis of its [1, 5, 6] output
    expect(after.match(/= Transpose|: Transpose/g)).toHaveLength(1);
    expect(after).toContain('-> float32[1,5,1]');
  });

  it('transpose-sinking through Pad', async () => {
    // NHWC channel and spatial pads (TF residual blocks) between layout transposes: the pads move to the NCHW axes
    const b = new GraphBuilder('sinking-pad', { ops });
    const x = b.input('x', 'float32', [1, 2, 3, 4]);
    const t = b.op('Transpose', [x], { name: 'to_nhwc', attrs: { perm: attr.ints([0, 2, 3, 1]) } });
    const pads = b.constant('pads', i64([0, 1, 0, 0, 0, 0, 2, 3]));
    const value = b.constant('value', createTensor('float32', [], Float32Array.of(0.5)));
    const pad = b.op('Pad', [t, pads, value], { name: 'pad', attrs: { mode: attr.string('constant') } });
    const edge = b.op('Pad', [b.op('Relu', [pad], { name: 'relu' }), b.constant('pads2', i64([0, 0, 1, 0, 0, 2, 0, 1]))], {
      name: 'edge',
      attrs: { mode: attr.string('edge') },
    });
    b.output(b.op('Transpose', [edge], { name: 'to_nchw', attrs: { perm: attr.ints([0, 3, 1, 2]) } }), 'y');
    const r = apply(b.build(), [layoutChainsPass, deadCodePass], { x: f32([1, 2, 3, 4]) });
    const after = r.text.split('--- after')[1] as string;
    expect(after).not.toContain('Transpose');
    // NHWC [H begin 1, W end 2, C end 3] → NCHW [C end 3, H begin 1, W end 2]: [1, 2+3, 3+1, 4+2]
    expect(after).toContain('pad: Pad(x:0, pad_pads:0, value:0) {mode=constant} -> float32[1,5,4,6]');
    await expect(r.text).toMatchFileSnapshot('golden/transpose-sinking-pad.txt');
  });

  it('transpose-sinking through Resize and a Transpose read twice (hard-swish)', async () => {
    // NHWC: y = h · relu6(h + 3) / 6 with h = T(x), then a bilinear ×2 resize of H, W (scales per axis) and back to NCHW
    const b = new GraphBuilder('sinking-resize', { ops });
    const x = b.input('x', 'float32', [1, 2, 3, 4]);
    const h = b.op('Transpose', [x], { name: 'to_nhwc', attrs: { perm: attr.ints([0, 2, 3, 1]) } });
    const scalar = (name: string, v: number) => b.constant(name, createTensor('float32', [], Float32Array.of(v)));
    const relu6 = b.op('Clip', [b.op('Add', [h, scalar('three', 3)], { name: 'add3' }), scalar('lo', 0), scalar('hi', 6)], {
      name: 'relu6',
    });
    const swish = b.op('Div', [b.op('Mul', [h, relu6], { name: 'mul' }), scalar('six', 6)], { name: 'div' });
    const scales = b.constant('scales', createTensor('float32', [4], Float32Array.of(1, 2, 1.5, 1)));
    const resize = b.op('Resize', [swish, b.constant('roi', createTensor('float32', [0])), scales], {
      name: 'resize',
      attrs: { mode: attr.string('linear') },
    });
    b.output(b.op('Transpose', [resize], { name: 'to_nchw', attrs: { perm: attr.ints([0, 3, 1, 2]) } }), 'y');
    const r = apply(b.build(), [layoutChainsPass, commonSubexpressionPass, deadCodePass], { x: f32([1, 2, 3, 4]) });
    const after = r.text.split('--- after')[1] as string;
    expect(after).not.toContain('Transpose');
    // NHWC scales [1, 2, 1.5, 1] → NCHW [1, 1, 2, 1.5]: [1, 2, 3·2, 4·1.5]
    expect(after).toMatch(/resize: Resize\(div:0, roi:0, resize_in2_relayout:0\) \{mode=linear\} -> float32\[1,2,6,6\]/);
    await expect(r.text).toMatchFileSnapshot('golden/transpose-sinking-resize.txt');
  });

  it('a Transpose that is also a graph output is not split', () => {
    const b = new GraphBuilder('no-split', { ops });
    const t = b.op('Transpose', [b.input('x', 'float32', [1, 2, 3])], { name: 't', attrs: { perm: attr.ints([0, 2, 1]) } });
    b.output(t, 'y');
    b.output(b.op('Relu', [t], { name: 'relu' }), 'z');
    const r = apply(b.build(), [layoutChainsPass, deadCodePass], { x: f32([1, 2, 3]) });
    expect((r.text.split('--- after')[1] as string).match(/Transpose/g)).toHaveLength(1);
  });

  it('common-subexpression', async () => {
    const b = new GraphBuilder('cse', { ops });
    const x = b.input('x', 'float32', [4]);
    const c1 = b.constant('c1', createTensor('float32', [4], Float32Array.of(1, 2, 3, 4)));
    const c2 = b.constant('c2', createTensor('float32', [4], Float32Array.of(1, 2, 3, 4)));
    const a = b.op('Add', [x, c1], { name: 'a' });
    const a2 = b.op('Add', [x, c2], { name: 'a2' });
    b.output(b.op('Mul', [b.op('Relu', [a], { name: 'r1' }), b.op('Relu', [a2], { name: 'r2' })], { name: 'mul' }), 'y');
    const r = apply(b.build(), [commonSubexpressionPass], { x: f32([4]) });
    expect(r.counters.cse).toBe(3);
    await expect(r.text).toMatchFileSnapshot('golden/common-subexpression.txt');
  });

  it('dead-code-elimination', async () => {
    const b = new GraphBuilder('dce', { ops });
    const x = b.input('x', 'float32', [4]);
    b.op('Sigmoid', [b.op('Neg', [x], { name: 'unused1' })], { name: 'unused2' });
    b.output(b.op('Relu', [x], { name: 'relu' }), 'y');
    const r = apply(b.build(), [deadCodePass], { x: f32([4]) });
    expect(r.counters['dead-nodes']).toBe(2);
    await expect(r.text).toMatchFileSnapshot('golden/dead-code-elimination.txt');
  });
});
