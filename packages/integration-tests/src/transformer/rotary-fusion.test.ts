// Rotary position embedding written out as PyTorch exports it (x·cos + Concat(−x₂, x₁)·sin) becomes
// one tsge::ApplyRotary at O3: compiled with and without the `rotary` pass, fused nodes counted,
// every output of both runs against onnxruntime-node. Near misses must stay unfused and still agree.
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
const ints = (name: string, values: readonly number[]): NodeSpec => node('Constant', [], [name], [{ name: 'value_ints', ints: values }]);
const random = lcg(16);
const [B, H, S, D] = [2, 3, 5, 16];
const BIG = Number.MAX_SAFE_INTEGER;

/** x[..., from:to] on the last axis (opset ≥ 10 Slice with constant inputs). */
const slice = (x: string, y: string, from: number, to: number): NodeSpec[] => [
  ints(`${y}_starts`, [from]),
  ints(`${y}_ends`, [to]),
  ints(`${y}_axes`, [-1]),
  node('Slice', [x, `${y}_starts`, `${y}_ends`, `${y}_axes`], [y]),
];
/** out = x·cos + rotated·sin, rotated given. */
const tail = (x: string, rotated: string, cos = 'cos', sin = 'sin'): NodeSpec[] => [
  node('Mul', [x, cos], ['xc']),
  node('Mul', [rotated, sin], ['rs']),
  node('Add', ['xc', 'rs'], ['y']),
];
const concat = (a: string, b: string, y: string) => node('Concat', [a, b], [y], [{ name: 'axis', int: -1 }]);

/** The op types (and their kernels) of the last fused run. */
let lastOps: string[] = [];

async function fusedCount(label: string, bytes: Uint8Array, feeds: Record<string, HostTensor>, outputs = ['y']): Promise<number> {
  const session = await ort.InferenceSession.create(bytes);
  const ortFeeds = Object.fromEntries(
    Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, t.dims as number[])]),
  );
  const want = await session.run(ortFeeds);
  await session.release();
  let count = 0;
  for (const on of [true, false]) {
    const compiled = await compileModel(await parseModel(bytes, { fileName: `${label}.onnx` }), { optimizationSwitch: { rotary: on } });
    if (on) count = compiled.summary.counters.rotary ?? 0;
    const model = await loadModel(compiled.om, { threads: 1, profile: true });
    const got = await model.run(feeds);
    if (on)
      lastOps = model
        .profile()
        .traceEvents.filter((e): e is TraceEvent => e.ph === 'X' && e.cat !== 'tile')
        .map((e) => `${e.cat}/${'kernel' in e.args ? e.args.kernel : ''}`);
    await model.release();
    for (const name of outputs) {
      const g = got[name] as HostTensor;
      const w = want[name] as ort.Tensor;
      expect(g.dims, `${label} ${name}`).toEqual(w.dims);
      const a = g.data as Float32Array;
      const b = w.data as Float32Array;
      let worst = 0;
      for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
      expect(worst, `${label} ${name} (pass ${on ? 'on' : 'off'}) vs onnxruntime-node`).toBeLessThanOrEqual(1e-5);
    }
  }
  return count;
}

const feedsFor = (cosDims: number[]): Record<string, HostTensor> => ({
  x: randomFloats('float32', [B, H, S, D], random),
  cos: randomFloats('float32', cosDims, random),
  sin: randomFloats('float32', cosDims, random),
});
const io = (cosDims: number[], extra: Operand[] = []) =>
  [
    [f32('x', [B, H, S, D]), f32('cos', cosDims), f32('sin', cosDims)],
    [f32('y', [B, H, S, D]), ...extra],
  ] as const;

describe('rotary embedding fusion', () => {
  it('two Slices, Neg, cos/sin inputs [S, D] (opset 17)', async () => {
    const nodes = [
      ...slice('x', 'x1', 0, D / 2),
      ...slice('x', 'x2', D / 2, BIG),
      node('Neg', ['x2'], ['n']),
      concat('n', 'x1', 'r'),
      ...tail('x', 'r'),
    ];
    const [inputs, outputs] = io([S, D]);
    expect(await fusedCount('slices', onnxModel(nodes, inputs, outputs, 17), feedsFor([S, D]))).toBe(1);
    expect(lastOps).toContain('ApplyRotary/wasm-simd');
    expect(lastOps.some((o) => /^(Slice|Neg|Concat|Mul|Add)\//.test(o))).toBe(false);
  });

  it('a Split in halves, Mul by −1, cos/sin computed from angles [B, 1, S, D] (opset 18)', async () => {
    const nodes = [
      node('Cos', ['angles'], ['cos']),
      node('Sin', ['angles'], ['sin']),
      node(
        'Split',
        ['x'],
        ['x1', 'x2'],
        [
          { name: 'axis', int: 3 },
          { name: 'num_outputs', int: 2 },
        ],
      ),
      node('Constant', [], ['minus'], [{ name: 'value_float', float: -1 }]),
      node('Mul', ['minus', 'x2'], ['n']),
      concat('n', 'x1', 'r'),
      node('Mul', ['cos', 'x'], ['xc']),
      node('Mul', ['sin', 'r'], ['rs']),
      node('Add', ['rs', 'xc'], ['y']),
    ];
    const bytes = onnxModel(nodes, [f32('x', [B, H, S, D]), f32('angles', [B, 1, S, D])], [f32('y', [B, H, S, D])], 18);
    const feeds = { x: randomFloats('float32', [B, H, S, D], random), angles: randomFloats('float32', [B, 1, S, D], random) };
    expect(await fusedCount('split', bytes, feeds)).toBe(1);
    expect(lastOps).toContain('ApplyRotary/wasm-simd');
    expect(lastOps.some((o) => o.startsWith('Split/'))).toBe(false);
  });

  it('Slices with attributes (opset 9) and a negative start for the second half', async () => {
    const attrSlice = (y: string, from: number, to: number) =>
      node(
        'Slice',
        ['x'],
        [y],
        [
          { name: 'starts', ints: [from] },
          { name: 'ends', ints: [to] },
          { name: 'axes', ints: [3] },
        ],
      );
    const nodes = [
      attrSlice('x1', 0, D / 2),
      attrSlice('x2', -D / 2, BIG),
      node('Neg', ['x2'], ['n']),
      concat('n', 'x1', 'r'),
      ...tail('x', 'r'),
    ];
    const [inputs, outputs] = io([H, 1, D]);
    expect(await fusedCount('slices-9', onnxModel(nodes, inputs, outputs, 9), feedsFor([H, 1, D]))).toBe(1);
    expect(lastOps).toContain('ApplyRotary/wasm-simd');
  });

  it('the reference kernel (js device) agrees with onnxruntime-node', async () => {
    const nodes = [
      ...slice('x', 'x1', 0, D / 2),
      ...slice('x', 'x2', -D / 2, BIG),
      node('Neg', ['x2'], ['n']),
      concat('n', 'x1', 'r'),
      ...tail('x', 'r'),
    ];
    const [inputs, outputs] = io([1, 1, S, D]);
    const bytes = onnxModel(nodes, inputs, outputs, 17);
    const feeds = feedsFor([1, 1, S, D]);
    const session = await ort.InferenceSession.create(bytes);
    const ortFeeds = Object.fromEntries(
      Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, t.dims)]),
    );
    const want = (await session.run(ortFeeds)).y as ort.Tensor;
    await session.release();
    const compiled = await compileModel(await parseModel(bytes, { fileName: 'rotary-js.onnx' }), { target: 'js' });
    expect(compiled.summary.counters.rotary).toBe(1);
    const model = await loadModel(compiled.om, { device: 'js' });
    const got = (await model.run(feeds)).y as HostTensor;
    await model.release();
    const a = got.data as Float32Array;
    const b = want.data as Float32Array;
    let worst = 0;
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
    expect(worst).toBeLessThanOrEqual(1e-5);
  });

  it('partial rotary (NeoX/Phi: the first D/2 features rotated, the rest passed through)', async () => {
    const R = D / 2;
    const nodes = [
      ...slice('x', 'xr', 0, R),
      ...slice('x', 'xp', R, BIG),
      ...slice('xr', 'x1', 0, R / 2),
      ...slice('xr', 'x2', R / 2, BIG),
      node('Neg', ['x2'], ['n']),
      concat('n', 'x1', 'r'),
      node('Mul', ['xr', 'cos'], ['xc']),
      node('Mul', ['r', 'sin'], ['rs']),
      node('Add', ['xc', 'rs'], ['yr']),
      concat('yr', 'xp', 'y'),
    ];
    const bytes = onnxModel(nodes, [f32('x', [B, H, S, D]), f32('cos', [S, R]), f32('sin', [S, R])], [f32('y', [B, H, S, D])], 17);
    const feeds = {
      x: randomFloats('float32', [B, H, S, D], random),
      cos: randomFloats('float32', [S, R], random),
      sin: randomFloats('float32', [S, R], random),
    };
    expect(await fusedCount('partial', bytes, feeds)).toBe(1);
    expect(lastOps).toContain('ApplyRotary/wasm-simd');
  });

  /** GPT-J's rotate_every_two: Slices of step 2, (−odd, even) stacked on a new axis and flattened. */
  const everyTwo = (opset: number, oddFrom = 1, negate: 'Neg' | 'Mul' = 'Neg'): NodeSpec[] => {
    const stepSlice = (y: string, from: number) => [
      ints(`${y}_starts`, [from]),
      ints(`${y}_ends`, [BIG]),
      ints(`${y}_axes`, [-1]),
      ints(`${y}_steps`, [2]),
      node('Slice', ['x', `${y}_starts`, `${y}_ends`, `${y}_axes`, `${y}_steps`], [y]),
    ];
    const unsqueeze = (x: string, y: string) =>
      opset >= 13
        ? [ints(`${y}_axes`, [-1]), node('Unsqueeze', [x, `${y}_axes`], [y])]
        : [node('Unsqueeze', [x], [y], [{ name: 'axes', ints: [-1] }])];
    const neg =
      negate === 'Neg'
        ? [node('Neg', ['odd'], ['n'])]
        : [node('Constant', [], ['minus'], [{ name: 'value_float', float: -1 }]), node('Mul', ['odd', 'minus'], ['n'])];
    return [
      ...stepSlice('odd', oddFrom),
      ...stepSlice('even', 1 - oddFrom),
      ...neg,
      ...unsqueeze('n', 'un'),
      ...unsqueeze('even', 'ue'),
      concat('un', 'ue', 'stacked'),
      ints('flat', [B, H, S, D]),
      node('Reshape', ['stacked', 'flat'], ['r']),
      ...tail('x', 'r'),
    ];
  };
  for (const [opset, negate] of [
    [17, 'Neg'],
    [11, 'Mul'],
  ] as const)
    it(`interleaved (GPT-J rotate_every_two), ${negate}, opset ${opset}`, async () => {
      const [inputs, outputs] = io([S, D]);
      expect(
        await fusedCount(`interleaved-${opset}`, onnxModel(everyTwo(opset, 1, negate), inputs, outputs, opset), feedsFor([S, D])),
      ).toBe(1);
      expect(lastOps).toContain('ApplyRotary/wasm-simd');
      expect(lastOps.some((o) => /^(Slice|Neg|Unsqueeze|Concat|Reshape|Mul|Add)\//.test(o))).toBe(false);
    });
  it('interleaved with the odd and even Slices swapped stays unfused and agrees', async () => {
    const [inputs, outputs] = io([S, D]);
    expect(await fusedCount('interleaved-swapped', onnxModel(everyTwo(17, 0), inputs, outputs, 17), feedsFor([S, D]))).toBe(0);
  });
  it('interleaved on the reference kernel (js device) agrees with onnxruntime-node', async () => {
    const [inputs, outputs] = io([1, 1, S, D]);
    const bytes = onnxModel(everyTwo(17), inputs, outputs, 17);
    const feeds = feedsFor([1, 1, S, D]);
    const session = await ort.InferenceSession.create(bytes);
    const want = (
      await session.run(
        Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, t.dims)])),
      )
    ).y as ort.Tensor;
    await session.release();
    const compiled = await compileModel(await parseModel(bytes, { fileName: 'interleaved-js.onnx' }), { target: 'js' });
    expect(compiled.summary.counters.rotary).toBe(1);
    const model = await loadModel(compiled.om, { device: 'js' });
    const got = (await model.run(feeds)).y as HostTensor;
    await model.release();
    let worst = 0;
    const a = got.data as Float32Array;
    const b = want.data as Float32Array;
    expect(a.length).toBe(b.length);
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
    expect(worst).toBeLessThanOrEqual(1e-5);
  });

  describe('near misses are left alone', () => {
    const halves = (h: number) => [...slice('x', 'x1', 0, h), ...slice('x', 'x2', h, BIG)];
    const cases: readonly [string, NodeSpec[], Operand[]][] = [
      ['concat order swapped', [...halves(D / 2), node('Neg', ['x2'], ['n']), concat('x1', 'n', 'r'), ...tail('x', 'r')], []],
      ['Neg on the first half', [...halves(D / 2), node('Neg', ['x1'], ['n']), concat('n', 'x2', 'r'), ...tail('x', 'r')], []],
      ['halves not at d/2', [...halves(6), node('Neg', ['x2'], ['n']), concat('n', 'x1', 'r'), ...tail('x', 'r')], []],
      [
        'the negated half used again',
        [...halves(D / 2), node('Neg', ['x2'], ['n']), concat('n', 'x1', 'r'), ...tail('x', 'r')],
        [f32('n', [B, H, S, D / 2])],
      ],
      [
        'a half used again',
        [...halves(D / 2), node('Neg', ['x2'], ['n']), concat('n', 'x1', 'r'), ...tail('x', 'r')],
        [f32('x1', [B, H, S, D / 2])],
      ],
    ];
    for (const [label, nodes, extra] of cases) {
      it(label, async () => {
        const [inputs, outputs] = io([S, D], extra);
        const names = ['y', ...extra.map((e) => e.name)];
        expect(await fusedCount(label.replaceAll(' ', '-'), onnxModel(nodes, inputs, outputs, 17), feedsFor([S, D]), names)).toBe(0);
      });
    }
  });
});
