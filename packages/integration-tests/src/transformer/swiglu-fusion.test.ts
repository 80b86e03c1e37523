// SwiGLU in the forms decoders are exported in becomes one tsge::SwiGLU at O3: compiled with and
// without the `swiglu` pass, fused nodes counted, both runs against onnxruntime-node.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { TraceEvent } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { lcg, randomFloats } from './ort-compare.fixture.js';
import { type Attr, type NodeSpec, type Operand, onnxModel } from './single-node-model.fixture.js';

const f32 = (name: string, dims: readonly number[]): Operand => ({ name, type: 'float32', dims });
const node = (opType: string, inputs: string[], outputs: string[], attrs: Attr[] = []): NodeSpec => ({
  opType,
  domain: '',
  inputs,
  outputs,
  attrs,
});
const silu = (x: string, y: string) => [node('Sigmoid', [x], [`${x}_sig`]), node('Mul', [x, `${x}_sig`], [y])];
const random = lcg(23);
const [B, S, E, F] = [2, 5, 16, 24];

/** The op types (and their kernels) of the last fused run. */
let lastOps: string[] = [];

async function fusedCount(label: string, bytes: Uint8Array, feeds: Record<string, HostTensor>): Promise<number> {
  const session = await ort.InferenceSession.create(bytes);
  const ortFeeds = Object.fromEntries(
    Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, t.dims as number[])]),
  );
  const want = (await session.run(ortFeeds)).y as ort.Tensor;
  await session.release();
  let count = 0;
  for (const on of [true, false]) {
    const compiled = await compileModel(await parseModel(bytes, { fileName: `${label}.onnx` }), { optimizationSwitch: { swiglu: on } });
    if (on) count = compiled.summary.counters.swiglu ?? 0;
    const model = await loadModel(compiled.om, { threads: 1, profile: true });
    const got = (await model.run(feeds)).y as HostTensor;
    if (on)
      lastOps = model
        .profile()
        .traceEvents.filter((e): e is TraceEvent => e.ph === 'X' && e.cat !== 'tile')
        .map((e) => `${e.cat}/${'kernel' in e.args ? e.args.kernel : ''}`);
    await model.release();
    expect(got.dims, label).toEqual(want.dims);
    const a = got.data as Float32Array;
    const b = want.data as Float32Array;
    let worst = 0;
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
    expect(worst, `${label} (pass ${on ? 'on' : 'off'}) vs onnxruntime-node`).toBeLessThanOrEqual(1e-4);
  }
  return count;
}

const x = () => randomFloats('float32', [B, S, E], random);

describe('SwiGLU fusion', () => {
  it('separate gate and up projections: Mul(gate · Sigmoid(gate), up)', async () => {
    const nodes = [
      node('MatMul', ['x', 'wg'], ['g']),
      node('MatMul', ['x', 'wu'], ['u']),
      ...silu('g', 'a'),
      node('Mul', ['u', 'a'], ['y']),
    ];
    const bytes = onnxModel(nodes, [f32('x', [B, S, E]), f32('wg', [E, F]), f32('wu', [E, F])], [f32('y', [B, S, F])], 17);
    const feeds = { x: x(), wg: randomFloats('float32', [E, F], random), wu: randomFloats('float32', [E, F], random) };
    expect(await fusedCount('separate', bytes, feeds)).toBe(1);
  });

  for (const opset of [17, 18]) {
    it(`one gate/up projection and a Split in halves (opset ${opset})`, async () => {
      const split =
        opset === 17
          ? [
              node('Constant', [], ['sizes'], [{ name: 'value_ints', ints: [F, F] }]),
              node('Split', ['h', 'sizes'], ['g', 'u'], [{ name: 'axis', int: -1 }]),
            ]
          : [
              node(
                'Split',
                ['h'],
                ['g', 'u'],
                [
                  { name: 'axis', int: 2 },
                  { name: 'num_outputs', int: 2 },
                ],
              ),
            ];
      const nodes = [node('MatMul', ['x', 'w'], ['h']), ...split, ...silu('g', 'a'), node('Mul', ['a', 'u'], ['y'])];
      const bytes = onnxModel(nodes, [f32('x', [B, S, E]), f32('w', [E, 2 * F])], [f32('y', [B, S, F])], opset);
      expect(await fusedCount(`split-${opset}`, bytes, { x: x(), w: randomFloats('float32', [E, 2 * F], random) })).toBe(1);
      // SwiGLU reads the projection itself: the Split is gone
      expect(lastOps).toContain('SwiGLU/wasm-simd');
      expect(lastOps.some((o) => o.startsWith('Split/'))).toBe(false);
    });
  }

  it('the reference kernel (js device) on both forms agrees with onnxruntime-node', async () => {
    const nodes = [
      node('MatMul', ['x', 'w'], ['h']),
      node(
        'Split',
        ['h'],
        ['g', 'u'],
        [
          { name: 'axis', int: -1 },
          { name: 'num_outputs', int: 2 },
        ],
      ),
      ...silu('g', 'a'),
      node('Mul', ['a', 'u'], ['y']),
      ...silu('y', 'b'),
      node('Mul', ['b', 'x2'], ['z']),
    ];
    const bytes = onnxModel(nodes, [f32('x', [B, S, E]), f32('w', [E, 2 * F]), f32('x2', [B, S, F])], [f32('z', [B, S, F])], 18);
    const feeds = { x: x(), w: randomFloats('float32', [E, 2 * F], random), x2: randomFloats('float32', [B, S, F], random) };
    const session = await ort.InferenceSession.create(bytes);
    const want = (
      await session.run(
        Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, t.dims)])),
      )
    ).z as ort.Tensor;
    await session.release();
    const compiled = await compileModel(await parseModel(bytes, { fileName: 'swiglu-js.onnx' }), { target: 'js' });
    expect(compiled.summary.counters.swiglu).toBe(2);
    const model = await loadModel(compiled.om, { device: 'js' });
    const got = (await model.run(feeds)).z as HostTensor;
    await model.release();
    const a = got.data as Float32Array;
    const b = want.data as Float32Array;
    let worst = 0;
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
    expect(worst).toBeLessThanOrEqual(1e-4);
  });

  describe('near misses are left alone', () => {
    it('an up that broadcasts', async () => {
      const nodes = [...silu('g', 'a'), node('Mul', ['a', 'u'], ['y'])];
      const bytes = onnxModel(nodes, [f32('g', [B, S, F]), f32('u', [1, 1, F])], [f32('y', [B, S, F])], 17);
      expect(
        await fusedCount('broadcast', bytes, {
          g: randomFloats('float32', [B, S, F], random),
          u: randomFloats('float32', [1, 1, F], random),
        }),
      ).toBe(0);
    });
    it('a sigmoid of another tensor', async () => {
      const nodes = [node('Sigmoid', ['u'], ['s']), node('Mul', ['g', 's'], ['a']), node('Mul', ['a', 'u'], ['y'])];
      const bytes = onnxModel(nodes, [f32('g', [B, S, F]), f32('u', [B, S, F])], [f32('y', [B, S, F])], 17);
      expect(
        await fusedCount('other', bytes, { g: randomFloats('float32', [B, S, F], random), u: randomFloats('float32', [B, S, F], random) }),
      ).toBe(0);
    });
  });
});
