// Projections that share an input and feed GroupQueryAttention (q/k/v, with biases) or SwiGLU
// (gate/up) become one product over weights concatenated at compile time: compiled with and without
// the `concat-projections` pass, the projections counted, every run against onnxruntime-node.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { TraceEvent } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { int32s, lcg, randomFloats } from './ort-compare.fixture.js';
import { type Attr, type NodeSpec, type Operand, onnxModel } from './single-node-model.fixture.js';

const random = lcg(41);
const f32 = (name: string, dims: readonly (number | string)[]): Operand => ({ name, type: 'float32', dims });
const node = (opType: string, inputs: string[], outputs: string[], attrs: Attr[] = [], domain = ''): NodeSpec => ({
  opType,
  domain,
  inputs,
  outputs,
  attrs,
});
const constant = (name: string, dims: number[]): NodeSpec =>
  node('Constant', [], [name], [{ name: 'value', tensor: { dims, data: randomFloats('float32', dims, random).data as Float32Array } }]);

/** Runs `bytes` under onnxruntime-node and tsge (pass on, then off); returns the pass's count and the op types run with it on. */
async function compare(
  label: string,
  bytes: Uint8Array,
  feeds: Record<string, HostTensor>,
  threads: number,
): Promise<{ count: number; ops: string[] }> {
  const session = await ort.InferenceSession.create(bytes);
  const want = await session.run(
    Object.fromEntries(
      Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor(t.type as 'float32', t.data as Float32Array, t.dims as number[])]),
    ),
  );
  await session.release();
  let count = 0;
  let ops: string[] = [];
  for (const on of [true, false]) {
    const compiled = await compileModel(await parseModel(bytes, { fileName: `${label}.onnx` }), {
      optimizationSwitch: { 'concat-projections': on },
    });
    if (on) count = compiled.summary.counters['projections-concatenated'] ?? 0;
    const model = await loadModel(compiled.om, { threads, profile: on });
    const got = await model.run(feeds);
    if (on)
      ops = model
        .profile()
        .traceEvents.filter((e): e is TraceEvent => e.ph === 'X' && e.cat !== 'tile')
        .map((e) => e.cat);
    await model.release();
    for (const [name, w] of Object.entries(want)) {
      const g = got[name] as HostTensor;
      expect(g.dims, `${label} ${name}`).toEqual(w.dims);
      const a = g.data as Float32Array;
      const b = w.data as Float32Array;
      let worst = 0;
      for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
      expect(worst, `${label} ${name} (pass ${on ? 'on' : 'off'}) vs onnxruntime-node`).toBeLessThanOrEqual(2e-5);
    }
  }
  return { count, ops };
}

const [E, HEADS, KV, H] = [32, 4, 2, 8];

/** x → q/k/v projections with biases → GroupQueryAttention; `keyAlsoOut` makes k a graph output too. */
function attentionModel(keyAlsoOut: boolean): Uint8Array {
  const nodes: NodeSpec[] = [];
  for (const [p, width] of [
    ['q', HEADS * H],
    ['k', KV * H],
    ['v', KV * H],
  ] as const)
    nodes.push(
      constant(`w${p}`, [E, width]),
      constant(`b${p}`, [width]),
      node('MatMul', ['x', `w${p}`], [`${p}0`]),
      node('Add', [`${p}0`, `b${p}`], [p]),
    );
  nodes.push(
    node(
      'GroupQueryAttention',
      ['q', 'k', 'v', 'past_key', 'past_value', 'seqlens_k', 'total_sequence_length'],
      ['y', 'present_key', 'present_value'],
      [
        { name: 'num_heads', int: HEADS },
        { name: 'kv_num_heads', int: KV },
      ],
      'com.microsoft',
    ),
  );
  const inputs = [
    f32('x', [1, 'seq', E]),
    f32('past_key', [1, KV, 'past', H]),
    f32('past_value', [1, KV, 'past', H]),
    { name: 'seqlens_k', type: 'int32', dims: [1] } as const,
    { name: 'total_sequence_length', type: 'int32', dims: [] } as const,
  ];
  const outputs = [
    f32('y', [1, 'seq', HEADS * H]),
    f32('present_key', [1, KV, 'total', H]),
    f32('present_value', [1, KV, 'total', H]),
    ...(keyAlsoOut ? [f32('k', [1, 'seq', KV * H])] : []),
  ];
  return onnxModel(nodes, inputs, outputs, 17);
}

const attentionFeeds = (seq: number, past: number): Record<string, HostTensor> => ({
  x: randomFloats('float32', [1, seq, E], random),
  past_key: randomFloats('float32', [1, KV, past, H], random),
  past_value: randomFloats('float32', [1, KV, past, H], random),
  seqlens_k: int32s([1], [past + seq - 1]),
  total_sequence_length: int32s([], [past + seq]),
});

describe('concat-projections', () => {
  for (const [seq, past, threads] of [
    [1, 5, 2],
    [6, 0, 1],
  ] as const)
    it(`q/k/v projections with biases become one product GroupQueryAttention reads packed (seq ${seq}, past ${past})`, async () => {
      const { count, ops } = await compare(`qkv-${seq}`, attentionModel(false), attentionFeeds(seq, past), threads);
      expect(count).toBe(1);
      expect(ops.filter((o) => o === 'PackedMatMul')).toHaveLength(1);
      expect(ops).not.toContain('Add');
    });

  it('a projection read by anything else stays separate', async () => {
    const { count, ops } = await compare('qkv-shared', attentionModel(true), attentionFeeds(1, 3), 1);
    expect(count).toBe(0);
    expect(ops.filter((o) => o === 'PackedMatMul')).toHaveLength(3);
  });

  it('gate and up projections become one product SwiGLU reads as halves', async () => {
    const F = 48;
    const nodes = [
      constant('wg', [E, F]),
      constant('wu', [E, F]),
      node('MatMul', ['x', 'wg'], ['g']),
      node('MatMul', ['x', 'wu'], ['u']),
      node('Sigmoid', ['g'], ['s']),
      node('Mul', ['g', 's'], ['a']),
      node('Mul', ['a', 'u'], ['y']),
    ];
    const bytes = onnxModel(nodes, [f32('x', [1, 'seq', E])], [f32('y', [1, 'seq', F])], 17);
    for (const seq of [1, 5]) {
      const { count, ops } = await compare(`gate-up-${seq}`, bytes, { x: randomFloats('float32', [1, seq, E], random) }, 2);
      expect(count).toBe(1);
      expect(ops.filter((o) => o === 'PackedMatMul')).toHaveLength(1);
      expect(ops).toContain('SwiGLU');
    }
  });
});
