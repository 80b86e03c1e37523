// A tiny Qwen2-style (q/k/v biases, tied lm_head) and Qwen3-style (q/k head norms, separate
// lm_head) decoder with seeded random weights, written as safetensors + config.json: tsge's graph
// (GroupQueryAttention with rotary and a KV cache) gives the logits and present key/values the same
// decoder written as plain ONNX gives under onnxruntime-node, over a prefill and 16 decode steps.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type DeviceFactoryV1, type DeviceV1, TsgeError, numberToFloat16 } from '@tsge/metadef';
import { cpuDeviceFactory } from '@tsge/runtime';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from './checkpoint.js';
import { type DecoderConfig, parseConfig } from './config.js';
import { generate } from './generate.js';
import { Decoder } from './decoder.js';
import { INT4_BLOCK, type WeightSource, rotaryCaches } from './decoder-graph.js';
import { dequantizeInt4, quantizeInt4 } from './quantize.js';
import { referenceDecoderOnnx } from './reference-onnx.fixture.js';
import { Safetensors, writeSafetensors } from './safetensors.js';
import { argmax, sampler, seededRandom } from './sample.js';

const SIZES = { hidden: 64, intermediate: 128, layers: 2, heads: 4, kvHeads: 2, headDim: 16, vocab: 256 };

function tinyCheckpoint(qwen3: boolean, seed: number) {
  const random = seededRandom(seed);
  const { hidden, intermediate, layers, heads, kvHeads, headDim, vocab } = SIZES;
  const tensors: Record<string, { shape: number[]; data: Float32Array }> = {};
  const add = (name: string, shape: number[], scale: number, offset = 0) => {
    const n = shape.reduce((a, b) => a * b, 1);
    tensors[name] = { shape, data: Float32Array.from({ length: n }, () => offset + (random() * 2 - 1) * scale) };
  };
  add('model.embed_tokens.weight', [vocab, hidden], 1);
  for (let i = 0; i < layers; i++) {
    const p = `model.layers.${i}`;
    add(`${p}.input_layernorm.weight`, [hidden], 0.2, 1);
    add(`${p}.post_attention_layernorm.weight`, [hidden], 0.2, 1);
    for (const [name, out] of [
      ['q_proj', heads * headDim],
      ['k_proj', kvHeads * headDim],
      ['v_proj', kvHeads * headDim],
    ] as const) {
      add(`${p}.self_attn.${name}.weight`, [out, hidden], 0.25);
      if (!qwen3) add(`${p}.self_attn.${name}.bias`, [out], 0.5);
    }
    if (qwen3) {
      add(`${p}.self_attn.q_norm.weight`, [headDim], 0.2, 1);
      add(`${p}.self_attn.k_norm.weight`, [headDim], 0.2, 1);
    }
    add(`${p}.self_attn.o_proj.weight`, [hidden, heads * headDim], 0.2);
    add(`${p}.mlp.gate_proj.weight`, [intermediate, hidden], 0.2);
    add(`${p}.mlp.up_proj.weight`, [intermediate, hidden], 0.2);
    add(`${p}.mlp.down_proj.weight`, [hidden, intermediate], 0.15);
  }
  add('model.norm.weight', [hidden], 0.2, 1);
  if (qwen3) add('lm_head.weight', [vocab, hidden], 0.3);
  const config = {
    model_type: qwen3 ? 'qwen3' : 'qwen2',
    hidden_size: hidden,
    intermediate_size: intermediate,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kvHeads,
    head_dim: headDim,
    vocab_size: vocab,
    rms_norm_eps: 1e-6,
    rope_theta: qwen3 ? 1_000_000 : 10_000,
    tie_word_embeddings: !qwen3,
    max_position_embeddings: 128,
    hidden_act: 'silu',
  };
  return { tensors, config };
}

const dirs: string[] = [];
beforeAll(async () => {
  for (let i = 0; i < 5; i++) dirs.push(await mkdtemp(path.join(tmpdir(), 'tsge-llm-')));
});
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

// the KV cache is shared by past and present (the default); the Qwen3 case runs on two workers
describe.each([
  ['Qwen2-style (biases, tied lm_head)', false, false, 1],
  ['Qwen3-style (head norms, separate lm_head), on workers', true, false, 2],
  ['Qwen2-style, 4-bit MatMulNBits projections and lm_head', false, true, 1],
])('%s', (_, qwen3, int4, threads) => {
  it('matches the plain ONNX decoder under onnxruntime-node over a prefill and 16 decode steps', async () => {
    const dir = dirs[(qwen3 ? 1 : 0) + (int4 ? 2 : 0)] as string;
    const { tensors, config } = tinyCheckpoint(qwen3, qwen3 ? 7 : 3);
    // two shards, as larger checkpoints come
    const names = Object.keys(tensors);
    const half = Math.floor(names.length / 2);
    const shard = (list: string[]) => writeSafetensors(Object.fromEntries(list.map((n) => [n, tensors[n] as (typeof tensors)[string]])));
    await writeFile(path.join(dir, 'model-00001-of-00002.safetensors'), shard(names.slice(0, half)));
    await writeFile(path.join(dir, 'model-00002-of-00002.safetensors'), shard(names.slice(half)));
    await writeFile(path.join(dir, 'config.json'), JSON.stringify(config));
    const checkpoint = await readCheckpoint(dir);
    const maxLength = 32;
    const decoder = await Decoder.create(checkpoint, { maxLength, threads, int4 });
    // the 4-bit decoder against the plain decoder on the values its 4-bit weights stand for
    const reference = int4 ? dequantized(checkpoint.config, checkpoint.weights) : checkpoint;
    const session = await ort.InferenceSession.create(referenceDecoderOnnx(reference.config, reference.weights));
    const random = seededRandom(11);
    const prompt = Array.from({ length: 8 }, () => Math.floor(random() * SIZES.vocab));
    try {
      await referenceGreedy(session, checkpoint.config, maxLength, prompt, 16, async (tokens, want, step) => {
        const logits = await decoder.step(tokens);
        expect(logits.length).toBe(SIZES.vocab);
        let worst = 0;
        for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs((logits[i] as number) - (want[i] as number)));
        expect(worst, `step ${step}: logits`).toBeLessThanOrEqual(1e-4);
      });
      expect(decoder.position).toBe(8 + 16);
      if (qwen3 || int4) return;
      // the whole path: tokenizer.json → prompt ids → generate → streamed text
      const vocab = Object.fromEntries(Array.from({ length: SIZES.vocab }, (_, i) => [`w${i}`, i]));
      const tokenizer = {
        version: '1.0',
        added_tokens: [],
        normalizer: null,
        pre_tokenizer: { type: 'Whitespace' },
        post_processor: null,
        decoder: null,
        model: { type: 'WordLevel', vocab, unk_token: 'w0' },
      };
      await writeFile(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
      const greedy: number[] = [];
      await referenceGreedy(session, checkpoint.config, maxLength, [5, 17, 200], 5, async (_t, want) => {
        greedy.push(argmax(want));
      });
      const pieces: string[] = [];
      const stats = await generate(
        dir,
        'w5 w17 w200',
        { maxNewTokens: 6, temperature: 0, topK: 0, topP: 1, seed: 0, chat: true, threads: 1 },
        (t) => pieces.push(t),
      );
      expect(pieces.join('').trim()).toBe(greedy.map((id) => `w${id}`).join(' '));
      expect(pieces.length).toBe(6);
      expect(stats).toMatchObject({ promptTokens: 3, newTokens: 6 });
      const sampled = async () => {
        const out: string[] = [];
        await generate(
          dir,
          'w5 w17 w200',
          { maxNewTokens: 6, temperature: 0.8, topK: 20, topP: 0.9, seed: 42, chat: false, threads: 1 },
          (t) => out.push(t),
        );
        return out.join('');
      };
      expect(await sampled()).toBe(await sampled());
    } finally {
      await decoder.release();
      await session.release();
    }
  });
});

/** The cpu device, counting the bytes of run-time tensors it allocates (its scratch allocator). */
function countingCpu(): { factory: DeviceFactoryV1; bytes: () => number } {
  let bytes = 0;
  const factory: DeviceFactoryV1 = {
    specVersion: 'v1',
    name: 'counting-cpu',
    targets: cpuDeviceFactory.targets,
    kernelKinds: cpuDeviceFactory.kernelKinds,
    unavailable: () => cpuDeviceFactory.unavailable(),
    create(options) {
      const device = cpuDeviceFactory.create(options);
      const scratch: DeviceV1['scratch'] = {
        allocate(n) {
          bytes += n;
          return device.scratch.allocate(n);
        },
        free: (offset) => device.scratch.free(offset),
      };
      return new Proxy(device, { get: (target, key) => (key === 'scratch' ? scratch : Reflect.get(target, key, target)) });
    },
  };
  return { factory, bytes: () => bytes };
}

const TYPED_ARRAYS = ['Float32Array', 'Float64Array', 'Int32Array', 'Uint8Array', 'Uint16Array', 'Int8Array', 'BigInt64Array'] as const;

/**
 * Counts the bytes of typed arrays created (JS heap) until `restore`: each constructor is replaced
 * by a proxy whose construct trap counts arrays that own new memory (views of a buffer do not).
 */
function countTypedArrays(): { bytes: () => number; restore: () => void } {
  let bytes = 0;
  const globals = globalThis as unknown as Record<string, unknown>;
  const saved = TYPED_ARRAYS.map((name) => [name, globals[name]] as const);
  for (const [name, ctor] of saved) {
    globals[name] = new Proxy(ctor as new (...args: unknown[]) => ArrayBufferView, {
      construct(target, args, newTarget) {
        const array = Reflect.construct(target, args, newTarget) as ArrayBufferView;
        const source = args[0];
        if (!(source instanceof ArrayBuffer) && !(source instanceof SharedArrayBuffer)) bytes += array.byteLength;
        return array;
      },
    });
  }
  return {
    bytes: () => bytes,
    restore: () => {
      for (const [name, ctor] of saved) globals[name] = ctor;
    },
  };
}

describe('KV cache shared by past and present', () => {
  it('a decode step allocates nothing proportional to the context; logits equal those of the copying cache', async () => {
    const dir = dirs[4] as string;
    const { tensors, config } = tinyCheckpoint(false, 5);
    await writeFile(path.join(dir, 'model.safetensors'), writeSafetensors(tensors));
    await writeFile(path.join(dir, 'config.json'), JSON.stringify(config));
    const checkpoint = await readCheckpoint(dir);
    const { layers, kvHeads, headDim } = checkpoint.config;
    const run = async (shareBuffer: boolean) => {
      const counter = countingCpu();
      // one thread: every run-time tensor is allocated on the calling thread, through the counter
      const decoder = await Decoder.create(checkpoint, {
        maxLength: 64,
        threads: 1,
        shareBuffer,
        load: { device: 'counting-cpu', devices: [counter.factory] },
      });
      try {
        const random = seededRandom(2);
        let logits = await decoder.step(Array.from({ length: 8 }, () => Math.floor(random() * SIZES.vocab)));
        const bytes: number[] = [];
        const heap: number[] = [];
        const all: Float32Array[] = [logits];
        for (let i = 0; i < 48; i++) {
          const before = counter.bytes();
          const arrays = countTypedArrays();
          try {
            logits = await decoder.step([argmax(logits)]);
          } finally {
            arrays.restore();
          }
          heap.push(arrays.bytes());
          bytes.push(counter.bytes() - before);
          all.push(logits);
        }
        return { bytes, heap, all };
      } finally {
        await decoder.release();
      }
    };
    const shared = await run(true);
    const copying = await run(false);
    // contexts of 10 and 56 tokens
    const early = 1;
    const late = 47;
    expect(shared.bytes[late], 'device bytes of a step at context 56 vs 10, shared cache').toBe(shared.bytes[early]);
    expect(shared.heap[late], 'heap bytes of a step at context 56 vs 10, shared cache').toBe(shared.heap[early]);
    // the copying cache allocates each step's presents anew: 2 tensors a layer, one row a token more
    const growth = (copying.bytes[late] as number) - (copying.bytes[early] as number);
    expect(growth).toBeGreaterThanOrEqual(2 * layers * kvHeads * headDim * 4 * (late - early));
    // in device memory: the SIMD kernel copies the past rows there, with no heap copy of the cache
    expect((copying.heap[late] as number) - (copying.heap[early] as number)).toBeLessThan(growth);
    shared.all.forEach((logits, step) => {
      let worst = 0;
      const want = copying.all[step] as Float32Array;
      for (let i = 0; i < logits.length; i++) worst = Math.max(worst, Math.abs((logits[i] as number) - (want[i] as number)));
      expect(worst, `step ${step}`).toBeLessThanOrEqual(1e-5);
    });
  });
});

/** The weights MatMulNBits computes with: each projection (and the lm_head, untied) quantized and back. */
function dequantized(config: DecoderConfig, weights: WeightSource): { config: DecoderConfig; weights: WeightSource } {
  const round = (name: string) => {
    const w = weights.get(name);
    const [n, k] = w.shape as [number, number];
    return { shape: w.shape, data: dequantizeInt4(quantizeInt4(w.data, n, k, INT4_BLOCK), n, k, INT4_BLOCK) };
  };
  return {
    config: { ...config, tieEmbeddings: false },
    weights: {
      has: (name) => name === 'lm_head.weight' || weights.has(name),
      get: (name) =>
        name === 'lm_head.weight'
          ? round(config.tieEmbeddings ? 'model.embed_tokens.weight' : name)
          : name.endsWith('_proj.weight')
            ? round(name)
            : weights.get(name),
    },
  };
}

/**
 * Runs the plain ONNX decoder on `prompt` then `steps` greedy decode steps, handing each step's
 * tokens and reference logits to `check` (which may run tsge on the same tokens).
 */
async function referenceGreedy(
  session: ort.InferenceSession,
  config: DecoderConfig,
  maxLength: number,
  prompt: number[],
  steps: number,
  check: (tokens: number[], logits: Float32Array, step: number) => Promise<void>,
): Promise<void> {
  const { cos, sin } = rotaryCaches(config, maxLength);
  const { kvHeads, headDim, layers } = config;
  let past: Record<string, ort.Tensor> = {};
  for (let i = 0; i < layers; i++)
    for (const kv of ['key', 'value'])
      past[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headDim]);
  let tokens = prompt;
  let position = 0;
  for (let step = 0; step <= steps; step++) {
    const seq = tokens.length;
    const total = position + seq;
    const mask = Float32Array.from({ length: seq * total }, (_, i) => (i % total <= position + Math.floor(i / total) ? 0 : -1e9));
    const angles = (t: Float32Array) =>
      new ort.Tensor('float32', t.slice(position * (headDim / 2), total * (headDim / 2)), [seq, headDim / 2]);
    const expected = await session.run({
      input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, seq]),
      cos: angles(cos),
      sin: angles(sin),
      mask: new ort.Tensor('float32', mask, [seq, total]),
      ...past,
    });
    const want = expected.logits?.data as Float32Array;
    await check(tokens, want, step);
    past = {};
    for (let i = 0; i < layers; i++)
      for (const kv of ['key', 'value']) past[`past_key_values.${i}.${kv}`] = expected[`present.${i}.${kv}`] as ort.Tensor;
    position = total;
    tokens = [argmax(want)];
  }
}

describe('safetensors reader', () => {
  const file = 'w.safetensors';
  const withHeader = (header: unknown, dataBytes: number) => {
    const json = new TextEncoder().encode(JSON.stringify(header));
    const out = new Uint8Array(8 + json.length + dataBytes);
    new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
    out.set(json, 8);
    return out;
  };
  const code = (f: () => unknown): string | undefined => {
    try {
      f();
    } catch (error) {
      if (error instanceof TsgeError) return `${error.code} ${error.message}`;
      throw error;
    }
    return undefined;
  };

  it('widens F16 and BF16 to float32', () => {
    const bytes = withHeader(
      {
        a: { dtype: 'F16', shape: [2], data_offsets: [0, 4] },
        b: { dtype: 'BF16', shape: [2], data_offsets: [4, 8] },
        __metadata__: { format: 'pt' },
      },
      8,
    );
    const data = new DataView(bytes.buffer, bytes.byteLength - 8);
    data.setUint16(0, numberToFloat16(1.5), true);
    data.setUint16(2, numberToFloat16(-0.25), true);
    data.setUint16(4, 0x3fc0, true); // bf16 1.5
    data.setUint16(6, 0xc2f7, true); // bf16 -123.5
    const st = Safetensors.parse(bytes, file);
    expect(st.names).toEqual(['a', 'b']);
    expect(Array.from(st.float32('a'))).toEqual([1.5, -0.25]);
    expect(Array.from(st.float32('b'))).toEqual([1.5, -123.5]);
  });

  it('rejects malformed headers with coded errors naming the file and tensor', () => {
    expect(code(() => Safetensors.parse(new Uint8Array(4), file))).toMatch(/^TSGE-E3501 .*w\.safetensors/);
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setBigUint64(0, 2n ** 62n, true);
    expect(code(() => Safetensors.parse(huge, file))).toMatch(/^TSGE-E3501 .*header length/);
    expect(code(() => Safetensors.parse(withHeader([1, 2], 0), file))).toMatch(/^TSGE-E3501 .*not a JSON object/);
    const broken = withHeader({}, 0);
    broken[8] = 0x7b;
    broken[9] = 0xff;
    expect(code(() => Safetensors.parse(broken, file))).toMatch(/^TSGE-E3501 .*not UTF-8 JSON/);
    expect(code(() => Safetensors.parse(withHeader({ t: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, 8), file))).toMatch(
      /^TSGE-E3502 .*tensor t: dtype "I64"/,
    );
    expect(code(() => Safetensors.parse(withHeader({ t: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, 4), file))).toMatch(
      /^TSGE-E3502 .*tensor t: data_offsets \[0, 8\] are not within the 4 data bytes/,
    );
    expect(code(() => Safetensors.parse(withHeader({ t: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, 8), file))).toMatch(
      /^TSGE-E3502 .*needs 12 bytes/,
    );
    expect(code(() => Safetensors.parse(withHeader({ t: { dtype: 'F32', shape: [-1], data_offsets: [0, 0] } }, 0), file))).toMatch(
      /^TSGE-E3502 .*shape \[-1\]/,
    );
    expect(code(() => Safetensors.parse(withHeader({}, 0), file).float32('missing'))).toMatch(/^TSGE-E3502 .*missing: not in the file/);
  });
});

describe('config and sampling', () => {
  it('rejects configs the decoder cannot build', () => {
    const base = {
      model_type: 'qwen2',
      hidden_size: 64,
      intermediate_size: 8,
      num_hidden_layers: 1,
      num_attention_heads: 4,
      vocab_size: 8,
    };
    expect(parseConfig(JSON.stringify(base), 'c.json').headDim).toBe(16);
    const error = (patch: object) => {
      try {
        parseConfig(JSON.stringify({ ...base, ...patch }), 'c.json');
      } catch (e) {
        return e instanceof TsgeError ? e.code : 'other';
      }
      return 'none';
    };
    expect(error({ model_type: 'gpt2' })).toBe('TSGE-E4150');
    expect(error({ num_key_value_heads: 3 })).toBe('TSGE-E4150');
    expect(error({ rope_scaling: { rope_type: 'yarn', factor: 4 } })).toBe('TSGE-E4150');
    expect(error({ hidden_act: 'gelu' })).toBe('TSGE-E4150');
    expect(error({ hidden_size: '64' })).toBe('TSGE-E4150');
  });

  it('samples within top-k, reproducibly for a seed', () => {
    const logits = Float32Array.from({ length: 50 }, (_, i) => (i === 7 ? 5 : i === 3 ? 4.5 : i === 40 ? 4 : 0));
    const draw = (seed: number) => {
      const pick = sampler({ temperature: 1, topK: 2, topP: 1, seed });
      return Array.from({ length: 200 }, () => pick(logits));
    };
    const a = draw(5);
    expect(new Set(a)).toEqual(new Set([7, 3]));
    expect(draw(5)).toEqual(a);
    const nucleus = sampler({ temperature: 1, topK: 0, topP: 0.01, seed: 1 });
    expect(nucleus(logits)).toBe(7);
    expect(sampler({ temperature: 0, topK: 0, topP: 1, seed: 1 })(logits)).toBe(7);
  });
});
