// The decoders onnxruntime-genai tests with (GroupQueryAttention with a float16 KV cache, LFM2's
// hybrid conv/attention, Phi-3's text decoder) run a prefill of 8 tokens and 8 decode steps, each
// step fed the previous step's present tensors; every output must match onnxruntime-node. One
// compiled model serves every step: the sequence dims are symbolic.
import path from 'node:path';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import { type DataType, type HostTensor, float16ToNumber } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';

const dir = path.resolve(process.cwd(), '../shared/testdata/models/onnx/genai');
const PREFILL = 8;
const DECODES = 8;

/** Deterministic pseudo-random numbers (tests never depend on Math.random). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface InputMeta {
  name: string;
  type: string;
  shape: readonly (number | string)[];
}

function numbersOf(t: { type: string; data: unknown }): number[] {
  const data = t.data as ArrayLike<number | bigint>;
  if (t.type === 'float16') return Array.from(data as ArrayLike<number>, float16ToNumber);
  return Array.from(data, (v) => Number(v));
}

/** The past input a present output feeds (present.N.key → past_key_values.N.key, present_conv.N → past_conv.N). */
const pastNameOf = (present: string): string => present.replace(/^present\./, 'past_key_values.').replace(/^present_conv\./, 'past_conv.');

function makeTensor(type: string, dims: number[], values: ArrayLike<number>): HostTensor {
  const n = values.length;
  if (type === 'int64') return { type, dims, data: BigInt64Array.from(Array.from(values, (v) => BigInt(v))) };
  if (type === 'int32') return { type, dims, data: Int32Array.from(values) };
  if (type === 'float32') return { type, dims, data: Float32Array.from(values) };
  if (type === 'float16') return { type: 'float16' as DataType, dims, data: new Uint16Array(n) }; // only zero caches
  throw new Error(`no feed for ${type}`);
}

/** `zeroLogits`: the Phi-3 dummy decoder's logits are all zero by construction. */
async function runDecoder(file: string, batch: number, vocab: number, zeroLogits = false): Promise<void> {
  const session = await ort.InferenceSession.create(file);
  const metas = (session as unknown as { inputMetadata: InputMeta[] }).inputMetadata;
  const model = await loadModel((await compileModel(await parseModel(file))).om, { threads: 1 });
  const random = lcg(16);
  let past = 0;
  const carried = new Map<string, HostTensor>();
  try {
    for (let step = 0; step <= DECODES; step++) {
      const seq = step === 0 ? PREFILL : 1;
      const feeds: Record<string, HostTensor> = {};
      for (const meta of metas) {
        const carriedTensor = carried.get(meta.name);
        if (carriedTensor) {
          feeds[meta.name] = carriedTensor;
          continue;
        }
        const dims = meta.shape.map((d) => {
          if (typeof d === 'number') return d;
          if (d.startsWith('batch')) return batch;
          if (d.startsWith('total')) return past + seq;
          if (d.startsWith('past')) return past;
          return seq;
        });
        const count = dims.reduce((a, b) => a * b, 1);
        let values: number[];
        if (meta.name === 'input_ids') values = Array.from({ length: count }, () => Math.floor(random() * vocab));
        else if (meta.name === 'attention_mask') values = new Array(count).fill(1);
        else if (meta.name === 'position_ids') values = Array.from({ length: count }, (_, i) => past + (i % seq));
        else if (meta.name === 'inputs_embeds') values = Array.from({ length: count }, () => random() - 0.5);
        else values = new Array(count).fill(0); // empty KV cache, zero conv state
        feeds[meta.name] = makeTensor(meta.type, dims, values);
      }
      const ortFeeds = Object.fromEntries(
        Object.entries(feeds).map(([name, t]) => [name, new ort.Tensor(t.type as 'float32', t.data as Float32Array, t.dims as number[])]),
      );
      const expected = await session.run(ortFeeds);
      const actual = await model.run(feeds);
      for (const name of session.outputNames) {
        const want = expected[name] as ort.Tensor;
        const got = actual[name] as HostTensor;
        expect(got.dims, `${name} at step ${step}`).toEqual(want.dims);
        const a = numbersOf(got);
        const b = numbersOf(want);
        const largest = b.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        if (name === 'logits' && !zeroLogits) expect(largest, `logits at step ${step} are all zero`).toBeGreaterThan(0);
        const scale = Math.max(1, largest);
        const tolerance = want.type === 'float16' ? 4e-3 * scale : 1e-4 * scale;
        let worst = 0;
        for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
        expect(worst, `${name} at step ${step}`).toBeLessThanOrEqual(tolerance);
        carried.set(pastNameOf(name), got);
      }
      past += seq;
    }
  } finally {
    await model.release();
    await session.release();
  }
}

describe('onnxruntime-genai decoders: prefill 8 tokens, then 8 decode steps', () => {
  it('tiny-qwen35-cuda (GroupQueryAttention, float16 KV cache)', async () => {
    await runDecoder(path.join(dir, 'tiny-qwen35-cuda/decoder.onnx'), 1, 1000);
  }, 120_000);
  it('tiny-random-lfm2-fp32 (conv state + attention cache)', async () => {
    await runDecoder(path.join(dir, 'tiny-random-lfm2-fp32/decoder.onnx'), 1, 1000);
  }, 120_000);
  it('phi3-v dummy_text (inputs_embeds)', async () => {
    await runDecoder(path.join(dir, 'phi3-v/dummy_text.onnx'), 2, 32064, true);
  }, 120_000);
});
