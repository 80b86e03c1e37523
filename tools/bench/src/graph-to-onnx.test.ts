// The ONNX writer on examples/llm's decoder graph (GroupQueryAttention, MatMulNBits,
// SimplifiedLayerNormalization): onnxruntime-node runs the written model and gives the logits tsge
// gives for the same graph, over a prefill and two decode steps.
import { type DecoderConfig, Decoder, type WeightSource, argmax, buildDecoderGraph, seededRandom } from '@tsge/example-llm';
import { TsgeError } from '@tsge/metadef';
import { GraphBuilder } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { graphToOnnx } from './graph-to-onnx.js';

const config: DecoderConfig = {
  modelType: 'qwen2',
  hidden: 64,
  intermediate: 96,
  layers: 2,
  heads: 4,
  kvHeads: 2,
  headDim: 16,
  vocab: 100,
  rmsEps: 1e-6,
  ropeTheta: 10000,
  tieEmbeddings: true,
  maxPositions: 64,
  eosTokenIds: [],
};

function weights(): WeightSource {
  const random = seededRandom(9);
  const made = new Map<string, { shape: number[]; data: Float32Array }>();
  const shapeOf = (name: string): number[] | undefined => {
    const { hidden, intermediate, heads, kvHeads, headDim, vocab } = config;
    if (name === 'model.embed_tokens.weight') return [vocab, hidden];
    if (name.endsWith('norm.weight')) return name.includes('self_attn') ? undefined : [hidden];
    const m = /\.(q|k|v|o)_proj\.(weight|bias)$|\.(gate|up|down)_proj\.weight$/.exec(name);
    if (!m) return undefined;
    const out = { q: heads * headDim, k: kvHeads * headDim, v: kvHeads * headDim, o: hidden }[m[1] as 'q'];
    if (m[1] === 'o') return m[2] === 'bias' ? undefined : [hidden, heads * headDim];
    if (m[1]) return m[2] === 'bias' ? [out] : [out, hidden];
    return m[3] === 'down' ? [hidden, intermediate] : [intermediate, hidden];
  };
  return {
    has: (name) => shapeOf(name) !== undefined,
    get(name) {
      let w = made.get(name);
      if (!w) {
        const shape = shapeOf(name) as number[];
        const norm = name.endsWith('norm.weight');
        const data = Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => (norm ? 1 : 0) + (random() - 0.5) * 0.5);
        w = { shape, data };
        made.set(name, w);
      }
      return w;
    },
  };
}

describe('graphToOnnx', () => {
  for (const int4 of [false, true])
    it(`onnxruntime-node runs the decoder graph as tsge does (${int4 ? '4-bit' : 'float32'})`, async () => {
      const source = weights();
      const maxLength = 16;
      const session = await ort.InferenceSession.create(graphToOnnx(buildDecoderGraph(config, source, 'w', { maxLength, int4 })));
      const decoder = await Decoder.create({ dir: 'w', config, weights: source }, { maxLength, int4, threads: 1 });
      try {
        const { kvHeads, headDim } = config;
        let past: Record<string, ort.Tensor> = {};
        for (let i = 0; i < config.layers; i++)
          for (const kv of ['key', 'value'])
            past[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headDim]);
        let tokens = [3, 14, 15, 92, 65];
        let position = 0;
        for (let step = 0; step < 3; step++) {
          const total = position + tokens.length;
          const out = await session.run({
            input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]),
            seqlens_k: new ort.Tensor('int32', Int32Array.of(total - 1), [1]),
            total_sequence_length: new ort.Tensor('int32', Int32Array.of(total), []),
            ...past,
          });
          const want = out.logits?.data as Float32Array;
          const got = await decoder.step(tokens);
          let worst = 0;
          for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs((got[i] as number) - (want[i] as number)));
          expect(worst, `step ${step}`).toBeLessThanOrEqual(1e-4);
          past = {};
          for (let i = 0; i < config.layers; i++)
            for (const kv of ['key', 'value']) past[`past_key_values.${i}.${kv}`] = out[`present.${i}.${kv}`] as ort.Tensor;
          position = total;
          tokens = [argmax(want)];
        }
      } finally {
        await decoder.release();
        await session.release();
      }
    });

  it('refuses what ONNX cannot hold with TSGE-E4156', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', 'float32', [1]);
    b.output(b.op('Identity', [x], { attrs: { odd: { kind: 'bools', value: [true] } } }), 'y');
    let code = '';
    try {
      graphToOnnx(b.build());
    } catch (error) {
      if (error instanceof TsgeError) code = `${error.code} ${error.message}`;
    }
    expect(code).toMatch(/^TSGE-E4156 .*attribute odd of kind bools/);
  });
});
